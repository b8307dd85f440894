/**
 * Entry of a simulator worker thread (isolated-sim.ts): the embedded simulator on a manual clock
 * that follows the run's clock (it moves only when the parent says `advance`), serving REST,
 * Datastream and the rest on loopback as in process. Its heap is the worker's, limited by the
 * parent's `resourceLimits`: a simulator that outgrows it dies alone.
 *
 * Messages in: `advance {to}`, `stats`, `allocate` (test hook, only with `testHooks`). Out:
 * `ready {urls}`, `ack {to, stats, heap}`, `stats {stats, heap}`, `log {line}`.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { ChainpilotError, createLogger, createRedactor, manualClock, type UnixMs } from '../../core/index.js';
import type { MarketSettings } from '../../sim/sim-settings.js';
import { startSimulator } from '../../sim/start-simulator.js';

/** What the parent gives the worker. */
export interface SimWorkerData {
  readonly seed: number;
  readonly apiKey: string;
  readonly startAt: number;
  readonly port: number;
  readonly logLevel: string;
  readonly testHooks: boolean;
  /** Market knobs (the daemon keeps a shorter history than a standalone simulator, see isolated-sim.ts). */
  readonly market: Partial<MarketSettings>;
}

export type SimWorkerRequest = { readonly type: 'advance'; readonly to: number } | { readonly type: 'stats' } | { readonly type: 'allocate' };

const port = parentPort;
if (!port) {
  throw new ChainpilotError('SIM_WORKER_FAILED', 'sim-worker.ts runs only as a worker thread (src/runtime/embedded/isolated-sim.ts starts it)', {
    retry: 'not_retryable',
  });
}
const data = workerData as SimWorkerData;
const redactor = createRedactor();
redactor.add(data.apiKey);
const log = createLogger({ redactor, level: data.logLevel, destination: { write: (line: string) => port.postMessage({ type: 'log', line }) } });
const clock = manualClock(data.startAt);
const sim = await startSimulator({ seed: data.seed, clock, apiKey: data.apiKey, port: data.port, log, market: data.market });
const heap = (): { used: number; limit: number } => {
  const h = getHeapStatistics();
  return { used: h.used_heap_size, limit: h.heap_size_limit };
};
const hoard: unknown[] = [];
port.on('message', (m: SimWorkerRequest) => {
  if (m.type === 'advance') {
    if (m.to > clock.now()) clock.advanceTo(m.to as UnixMs);
    port.postMessage({ type: 'ack', to: m.to, stats: sim.stats(), heap: heap() });
  } else if (m.type === 'stats') {
    port.postMessage({ type: 'stats', stats: sim.stats(), heap: heap() });
  } else if (data.testHooks) {
    // test hook: grow until the heap limit ends this worker (the parent restarts it)
    const grow = (): void => {
      for (let i = 0; i < 64; i++) hoard.push(new Array<number>(131_072).fill(i));
      setImmediate(grow);
    };
    grow();
  }
});
port.postMessage({ type: 'ready', urls: sim.urls, stats: sim.stats(), heap: heap() });
