/**
 * What the page knows: each deployment's detail, the recent decisions, the equity series and the
 * alerts, kept from the stream's messages. Sequence numbers are checked so that a resumed stream
 * never shows a gap or a duplicate; the counters (`stats`) are what the browser test reads.
 */
import { solNumber } from './format.js';
import type { DecisionMsg, Detail, EventMsg, Snapshot } from './types.js';

export const MAX_POINTS = 5_000;

/** Counters the browser test reads: a resumed stream must never show a gap or a duplicate. */
export const stats = { connects: 0, snapshots: 0, resets: 0, duplicates: 0, gaps: 0, messages: 0 };

export const store = {
  /** The daemon run the page follows (row keys carry it). */
  boot: '',
  decisionSeq: 0,
  eventSeq: 0,
  details: new Map<string, Detail>(),
  decisions: new Map<number, DecisionMsg>(),
  equity: new Map<string, { xs: number[]; ys: number[] }>(),
  alerts: [] as EventMsg[],
};

/** Replaces everything with the snapshot; `id` is its stream id (the sequences it stands at). */
export function applySnapshot(s: Snapshot, id: string): void {
  stats.snapshots++;
  if (s.reset) stats.resets++;
  store.boot = s.boot;
  store.details.clear();
  store.decisions.clear();
  store.equity.clear();
  store.alerts.length = 0;
  for (const d of s.deployments) store.details.set(d.name, d);
  for (const m of s.decisions) store.decisions.set(m.seq, m);
  for (const [name, pts] of Object.entries(s.equity)) store.equity.set(name, { xs: pts.map((p) => p[0] / 1_000), ys: pts.map((p) => solNumber(p[1])) });
  const [, d, e] = /\.(\d+)\.(\d+)$/.exec(id) ?? [];
  store.decisionSeq = Number(d ?? 0);
  store.eventSeq = Number(e ?? 0);
}

export function applyDecision(m: DecisionMsg): void {
  const { decisions } = store;
  if (decisions.has(m.seq) || m.seq <= store.decisionSeq) {
    stats.duplicates++;
    return;
  }
  if (m.seq !== store.decisionSeq + 1) stats.gaps++;
  store.decisionSeq = m.seq;
  decisions.set(m.seq, m);
  if (decisions.size > 2_000) decisions.delete(Math.min(...decisions.keys()));
}

export function applyEvent(m: EventMsg): void {
  if (m.seq <= store.eventSeq) {
    stats.duplicates++;
    return;
  }
  if (m.seq !== store.eventSeq + 1) stats.gaps++;
  store.eventSeq = m.seq;
  const ev = m.event;
  if (ev.type === 'equity' && ev.equityLamports) {
    const series = store.equity.get(m.deployment) ?? { xs: [], ys: [] };
    series.xs.push(ev.at / 1_000);
    series.ys.push(solNumber(ev.equityLamports));
    if (series.xs.length > MAX_POINTS) {
      series.xs.shift();
      series.ys.shift();
    }
    store.equity.set(m.deployment, series);
  } else if (ev.type === 'state' && ev.state) {
    const d = store.details.get(m.deployment);
    if (d) store.details.set(m.deployment, { ...d, state: ev.state });
  } else if (ev.type === 'alert') {
    store.alerts.unshift(m);
    store.alerts.length = Math.min(store.alerts.length, 100);
  }
}

/** The periodic status: every deployment's detail (one that is gone is dropped). */
export function applyStatus(s: { deployments: Detail[] }): void {
  const { details } = store;
  for (const d of s.deployments) details.set(d.name, d);
  for (const name of [...details.keys()]) if (!s.deployments.some((d) => d.name === name)) details.delete(name);
}
