/**
 * `/metrics` of the daemon's shared embedded simulators, each in its worker thread
 * (src/runtime/embedded/isolated-sim.ts): heap used and heap limit as the worker last reported them, and its
 * restarts. One series per simulator and name, labelled by `simulator` (`<seed>:<speed>`), never
 * by mint or deployment: a hundred deployments on one feed add nothing here.
 */
import { Counter, Gauge } from 'prom-client';
import type { IsolatedSim } from '../../runtime/embedded/isolated-sim.js';
import type { MetricsExtension } from '../service-port.js';

/** The simulators to measure at each scrape, by endpoint key (`sim:<seed>:<speed>`). */
export type SimulatorList = () => readonly { readonly key: string; readonly sim: IsolatedSim }[];

const label = (key: string): string => key.replace(/^sim:/, '');

/** The collectors, read from `list` at scrape time. */
export function simulatorMetrics(list: SimulatorList): MetricsExtension {
  return (registry) => {
    const gauge = (name: string, help: string, pick: (s: IsolatedSim) => number | undefined): void => {
      registry.registerMetric(
        new Gauge({
          name,
          help,
          labelNames: ['simulator'],
          registers: [],
          collect() {
            this.reset();
            for (const { key, sim } of list()) {
              const v = pick(sim);
              if (v !== undefined) this.set({ simulator: label(key) }, v);
            }
          },
        }),
      );
    };
    gauge('chainpilot_simulator_heap_used_bytes', "V8 heap used by an embedded simulator's worker thread", (s) => s.heap()?.usedBytes);
    gauge(
      'chainpilot_simulator_heap_limit_bytes',
      "Heap limit of an embedded simulator's worker thread (past it the worker is restarted)",
      (s) => s.heap()?.limitBytes,
    );
    const seen = new Map<string, number>();
    registry.registerMetric(
      new Counter({
        name: 'chainpilot_simulator_restarts_total',
        help: 'Times an embedded simulator worker ended (out of heap, or failed) and was started again',
        labelNames: ['simulator'],
        registers: [],
        collect() {
          for (const { key, sim } of list()) {
            const n = sim.restarts();
            const before = seen.get(key) ?? 0;
            if (n > before) this.inc({ simulator: label(key) }, n - before);
            else if (before === 0) this.inc({ simulator: label(key) }, 0);
            seen.set(key, n);
          }
        },
      }),
    );
  };
}
