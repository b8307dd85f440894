/**
 * One health and one stats snapshot per deployment and render, shared by every family that reads
 * the handles at scrape time (a dozen gauges read them; at a hundred deployments reading each
 * afresh made most of a scrape's time). Outside a render the snapshots are forgotten at the end of
 * the event-loop turn that took them; a render (which spans many turns) holds them until it ends.
 */
import { Counter, Gauge } from 'prom-client';
import type { DeploymentHandle } from '../../../runtime/handle/deployment-handle.js';
import type { SlotView } from '../../service-port.js';

/** What a family may read of a running deployment's handle. */
export type HandleView = Pick<DeploymentHandle, 'health' | 'stats'>;

/** A slot that has a handle, with the snapshot view of that handle. */
export interface RunningDeployment {
  readonly slot: SlotView;
  readonly h: HandleView;
}

/** The running deployments, each read through its snapshot (what the scrape-time families iterate). */
export type RunningDeployments = () => RunningDeployment[];

export interface HandleSnapshots {
  readonly running: RunningDeployments;
  /** Runs `render` with the snapshots held from its start to its end (renders may overlap). */
  during<T>(render: () => Promise<T>): Promise<T>;
}

export function createHandleSnapshots(slots: () => readonly SlotView[]): HandleSnapshots {
  const healthOf = new Map<DeploymentHandle, ReturnType<DeploymentHandle['health']>>();
  const statsOf = new Map<DeploymentHandle, ReturnType<DeploymentHandle['stats']>>();
  let forgetting = false;
  let rendering = 0;
  const clear = (): void => {
    healthOf.clear();
    statsOf.clear();
  };
  const forgetSoon = (): void => {
    // a render spans many turns: its snapshots last until it ends
    if (forgetting || rendering > 0) return;
    forgetting = true;
    setImmediate(() => {
      forgetting = false;
      clear();
    });
  };
  const snapshot = (h: DeploymentHandle): HandleView => ({
    health() {
      const v = healthOf.get(h) ?? h.health();
      healthOf.set(h, v);
      forgetSoon();
      return v;
    },
    stats() {
      const v = statsOf.get(h) ?? h.stats();
      statsOf.set(h, v);
      forgetSoon();
      return v;
    },
  });
  return {
    running: () => slots().flatMap((slot) => (slot.handle ? [{ slot, h: snapshot(slot.handle) }] : [])),
    async during(render) {
      rendering++;
      if (rendering === 1) clear();
      try {
        return await render();
      } finally {
        rendering--;
        if (rendering === 0) clear();
      }
    },
  };
}

/**
 * A family's series of one number per running deployment, labelled `deployment`, read at scrape
 * time: a gauge set to `pick`, or a counter at the total `pick` reports (the handle's own count). A
 * deployment whose `pick` is undefined has no series.
 */
export function perDeployment(
  running: RunningDeployments,
  kind: 'gauge' | 'counter',
  name: string,
  help: string,
  pick: (h: HandleView) => number | undefined,
): Gauge | Counter {
  const collect = function (this: Gauge | Counter): void {
    this.reset();
    for (const { slot, h } of running()) {
      const v = pick(h);
      if (v === undefined) continue;
      if (this instanceof Gauge) this.set({ deployment: slot.name }, v);
      else this.inc({ deployment: slot.name }, v);
    }
  };
  const opts = { name, help, labelNames: ['deployment'] as const, registers: [], collect };
  return kind === 'gauge' ? new Gauge(opts) : new Counter(opts);
}
