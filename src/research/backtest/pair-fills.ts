/**
 * Live (or paper) against its backtest, intent by intent: `backtest --verify-against LOG` pairs
 * every intent of the reference log with the backtest's and reports, per pair, the outcome on each
 * side, the fill price drift (bps, rent left out), the decision-to-outcome latency, fees and rent,
 * and a summary (share of reference fills paired, outcome differences by code, drift quantiles).
 *
 * Pairing, in order: the id the decision drew (a live run's prefix `int_1a2b3c4d_` or a resumed
 * book's `int_r2_` removed); then the same decision (strategy, side, token and decision time: ids
 * part ways after the first intent one side refused and the other admitted, since only admitted
 * intents draw an id); then the same strategy, side and token by order of occurrence. A refusal
 * before any id was drawn (a `denied` line) pairs by decision only.
 */
import { Decimal } from '../../core/index.js';
import type { DecisionEntry } from '../../engine/logs/decision-log.js';
import { isSlippageRefusal } from '../calibrate/slippage-refusal.js';
import type { DriftStats, DriftSummary, FillPair, LiveVsBacktest, PairSide } from '../report/live-drift-types.js';

export type { DriftStats, DriftSummary, FillPair, LiveVsBacktest, PairOutcome, PairSide } from '../report/live-drift-types.js';

/** Pairs kept in report.json (the summary counts them all). */
export const MAX_PAIRS = 5_000;

/** The run prefix a live run (`int_1a2b3c4d_`) or a resumed paper book (`int_r2_`) puts before the id a backtest draws. */
const RUN_PREFIX = /^int_(?:[0-9a-f]{8}|r\d+)_/;

/** The id a decision drew, without a run prefix. */
export function drawnId(intentId: string): string {
  return intentId.replace(RUN_PREFIX, 'int_');
}

interface Decided {
  readonly key: string;
  readonly intentId: string | null;
  readonly strategyId: string;
  readonly side: 'buy' | 'sell';
  readonly mint: string;
  readonly at: number;
  end: Extract<DecisionEntry, { kind: 'fill' | 'unfilled' }> | undefined;
  readonly deniedCode: string | null;
  paired: boolean;
}

/** Parses a decision log into its decisions in order (intents with their outcome, and denials). */
export function decisionsOf(text: string): Decided[] {
  const out: Decided[] = [];
  const byId = new Map<string, Decided>();
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    const e = JSON.parse(line) as DecisionEntry;
    if (e.kind === 'intent') {
      const d: Decided = {
        key: drawnId(e.intentId),
        intentId: e.intentId,
        strategyId: e.strategyId,
        side: e.side,
        mint: e.mint,
        at: e.at,
        end: undefined,
        deniedCode: null,
        paired: false,
      };
      out.push(d);
      byId.set(e.intentId, d);
    } else if (e.kind === 'denied') {
      out.push({ key: '', intentId: null, strategyId: e.strategyId, side: e.side, mint: e.mint, at: e.at, end: undefined, deniedCode: e.code, paired: false });
    } else if (e.kind === 'fill' || e.kind === 'unfilled') {
      const d = byId.get(e.intentId);
      if (d && d.end === undefined) d.end = e;
    }
    // `manual` lines (an operator's action) pair through the intents they place.
  }
  return out;
}

function sideOf(d: Decided): PairSide {
  const e = d.end;
  if (d.deniedCode !== null)
    return {
      intentId: null,
      outcome: 'denied',
      code: d.deniedCode,
      decidedAt: d.at,
      latencyMs: null,
      price: null,
      solAmount: null,
      tokenAmount: null,
      feeLamports: '0',
      rentLamports: '0',
    };
  if (e === undefined)
    return {
      intentId: d.intentId,
      outcome: 'unresolved',
      code: null,
      decidedAt: d.at,
      latencyMs: null,
      price: null,
      solAmount: null,
      tokenAmount: null,
      feeLamports: '0',
      rentLamports: '0',
    };
  if (e.kind === 'unfilled')
    return {
      intentId: d.intentId,
      outcome: e.outcome,
      code: e.code,
      ...(isSlippageRefusal(e.code, e.reason) ? { slippage: true as const } : {}),
      decidedAt: d.at,
      latencyMs: e.at - d.at,
      price: null,
      solAmount: null,
      tokenAmount: null,
      feeLamports: e.feeLamports,
      rentLamports: '0',
    };
  const rent = e.rentLamports ?? '0';
  const tokens = new Decimal(e.tokenAmount);
  const swapSol = new Decimal(e.solAmount).minus(rent);
  return {
    intentId: d.intentId,
    outcome: 'filled',
    code: null,
    decidedAt: d.at,
    latencyMs: e.at - d.at,
    // Raw SOL per raw token: the ratio of two sides' prices is what the drift needs, decimals cancel.
    price: tokens.gt(0) ? swapSol.div(tokens).toPrecision(20) : null,
    solAmount: e.solAmount,
    tokenAmount: e.tokenAmount,
    feeLamports: e.feeLamports,
    rentLamports: rent,
  };
}

const decisionKey = (d: Decided): string => `${d.strategyId}|${d.side}|${d.mint}|${d.at}`;
const tokenKey = (d: Decided): string => `${d.strategyId}|${d.side}|${d.mint}`;

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function statsOf(bps: readonly number[]): DriftStats | null {
  if (bps.length === 0) return null;
  const abs = bps.map(Math.abs).sort((a, b) => a - b);
  return {
    count: bps.length,
    meanBps: bps.reduce((a, b) => a + b, 0) / bps.length,
    medianAbsBps: median(abs)!,
    p90AbsBps: quantile(abs, 0.9),
    maxAbsBps: abs[abs.length - 1]!,
  };
}

function countBy(codes: readonly string[]): { code: string; count: number }[] {
  const m = new Map<string, number>();
  for (const c of codes) m.set(c, (m.get(c) ?? 0) + 1);
  return [...m].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

/** Pairs the reference log's decisions (`live`) with the backtest's and measures the drift. */
export function pairFills(live: string, backtest: string): LiveVsBacktest {
  const a = decisionsOf(live);
  const b = decisionsOf(backtest);
  const pairs: { live: Decided | undefined; bt: Decided | undefined; by: FillPair['pairedBy'] }[] = [];
  const btById = new Map<string, Decided>();
  for (const d of b) if (d.intentId !== null) btById.set(d.key, d);
  for (const d of a) {
    if (d.intentId === null) continue;
    const m = btById.get(d.key);
    if (m && !m.paired && decisionKey(m) === decisionKey(d)) {
      m.paired = d.paired = true;
      pairs.push({ live: d, bt: m, by: 'id' });
    }
  }
  const queue = (list: Decided[], key: (d: Decided) => string, idOnly: boolean): Map<string, Decided[]> => {
    const m = new Map<string, Decided[]>();
    for (const d of list) {
      if (d.paired || (idOnly && d.intentId === null)) continue;
      const k = key(d);
      const q = m.get(k);
      if (q) q.push(d);
      else m.set(k, [d]);
    }
    return m;
  };
  const pass = (key: (d: Decided) => string, idOnly: boolean, by: FillPair['pairedBy']): void => {
    const q = queue(b, key, idOnly);
    for (const d of a) {
      if (d.paired || (idOnly && d.intentId === null)) continue;
      const list = q.get(key(d));
      const m = list?.shift();
      if (!m) continue;
      m.paired = d.paired = true;
      pairs.push({ live: d, bt: m, by });
    }
  };
  pass(decisionKey, false, 'decision');
  pass(tokenKey, true, 'occurrence');
  for (const d of a) if (!d.paired && d.intentId !== null) pairs.push({ live: d, bt: undefined, by: 'none' });
  for (const d of b) if (!d.paired && d.end?.kind === 'fill') pairs.push({ live: undefined, bt: d, by: 'none' });
  pairs.sort((x, y) => (x.live ?? x.bt)!.at - (y.live ?? y.bt)!.at);

  const out: FillPair[] = pairs.map((p) => {
    const either = (p.live ?? p.bt)!;
    const ls = p.live ? sideOf(p.live) : null;
    const bs = p.bt ? sideOf(p.bt) : null;
    const drift = ls?.price && bs?.price && new Decimal(bs.price).gt(0) ? new Decimal(ls.price).div(bs.price).minus(1).times(10_000).toNumber() : null;
    return { strategyId: either.strategyId, side: either.side, mint: either.mint, pairedBy: p.by, live: ls, backtest: bs, priceDriftBps: drift };
  });
  const both = out.filter((p) => p.priceDriftBps !== null);
  const sum = (xs: readonly FillPair[], f: (p: FillPair) => string): string => xs.reduce((s, p) => s + BigInt(f(p)), 0n).toString();
  const liveFills = a.filter((d) => d.end?.kind === 'fill').length;
  const lat = (f: (p: FillPair) => PairSide | null): number | null =>
    median(out.map((p) => f(p)).flatMap((s) => (s?.outcome === 'filled' && s.latencyMs !== null ? [s.latencyMs] : [])));
  const summary: DriftSummary = {
    liveIntents: a.filter((d) => d.intentId !== null).length,
    liveFills,
    backtestFills: b.filter((d) => d.end?.kind === 'fill').length,
    pairedFills: both.length,
    pairedPct: liveFills === 0 ? null : (both.length / liveFills) * 100,
    pairedBy: {
      id: out.filter((p) => p.pairedBy === 'id').length,
      decision: out.filter((p) => p.pairedBy === 'decision').length,
      occurrence: out.filter((p) => p.pairedBy === 'occurrence').length,
    },
    filledLiveOnly: countBy(
      out
        .filter((p) => p.live?.outcome === 'filled' && p.backtest?.outcome !== 'filled')
        .map((p) => p.backtest?.code ?? (p.backtest ? p.backtest.outcome.toUpperCase() : 'ABSENT')),
    ),
    filledBacktestOnly: countBy(
      out
        .filter((p) => p.backtest?.outcome === 'filled' && p.live?.outcome !== 'filled')
        .map((p) => p.live?.code ?? (p.live ? p.live.outcome.toUpperCase() : 'ABSENT')),
    ),
    drift: {
      buy: statsOf(both.filter((p) => p.side === 'buy').map((p) => p.priceDriftBps!)),
      sell: statsOf(both.filter((p) => p.side === 'sell').map((p) => p.priceDriftBps!)),
      all: statsOf(both.map((p) => p.priceDriftBps!)),
    },
    latencyMs: { liveMedian: lat((p) => p.live), backtestMedian: lat((p) => p.backtest) },
    pairedFeesLamports: { live: sum(both, (p) => p.live!.feeLamports), backtest: sum(both, (p) => p.backtest!.feeLamports) },
    pairedRentLamports: { live: sum(both, (p) => p.live!.rentLamports), backtest: sum(both, (p) => p.backtest!.rentLamports) },
  };
  return { summary, pairs: out.slice(0, MAX_PAIRS), omittedPairs: Math.max(0, out.length - MAX_PAIRS) };
}

/** The summary as terminal lines. */
export function formatDriftSummary(s: DriftSummary): string {
  const pct = (x: number | null): string => (x === null ? 'n/a' : `${x.toFixed(1)} %`);
  const st = (name: string, d: DriftStats | null): string =>
    d === null
      ? `  ${name}: no paired fill`
      : `  ${name}: ${d.count} fills, mean ${d.meanBps.toFixed(1)} bps, median |${d.medianAbsBps.toFixed(1)}| bps, p90 |${d.p90AbsBps.toFixed(1)}| bps, max |${d.maxAbsBps.toFixed(1)}| bps`;
  const codes = (xs: DriftSummary['filledLiveOnly']): string => (xs.length === 0 ? 'none' : xs.map((c) => `${c.code} ${c.count}`).join(', '));
  return [
    `live vs backtest: ${s.pairedFills} of ${s.liveFills} live fills paired with a backtest fill (${pct(s.pairedPct)}); backtest fills ${s.backtestFills}`,
    `  intents paired by id ${s.pairedBy.id}, by decision ${s.pairedBy.decision}, by occurrence ${s.pairedBy.occurrence} (of ${s.liveIntents} live intents)`,
    `  filled live, not in the backtest: ${codes(s.filledLiveOnly)}`,
    `  filled in the backtest, not live: ${codes(s.filledBacktestOnly)}`,
    'price drift (live / backtest − 1, rent left out):',
    st('buys', s.drift.buy),
    st('sells', s.drift.sell),
    `latency decision→fill, median: live ${s.latencyMs.liveMedian ?? 'n/a'} ms, backtest ${s.latencyMs.backtestMedian ?? 'n/a'} ms`,
    `fees of paired fills: live ${s.pairedFeesLamports.live} lamports, backtest ${s.pairedFeesLamports.backtest}; rent: live ${s.pairedRentLamports.live}, backtest ${s.pairedRentLamports.backtest}`,
  ].join('\n');
}
