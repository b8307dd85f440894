/**
 * The daemon's memory budget: a configured ceiling (`--memory-limit 2GB`), an estimate of what a
 * set of deployments needs (refused at start and at reload when it does not fit), and a watch of
 * the process's RSS against the ceiling, sampled on the daemon's clock: at `highPct` of the ceiling
 * the daemon turns not-ready with a reason and notifies once; below `clearPct` it clears (the gap
 * between the two keeps a daemon hovering near the line from flapping).
 */
import { Gauge } from 'prom-client';
import { ChainpilotError, type Clock, type TimerHandle } from '../../core/index.js';
import { DEFAULT_SIM_HEAP_MB } from '../../runtime/embedded/isolated-sim.js';
import type { MetricsExtension } from '../service-port.js';
import { endpointKey } from './shared-endpoints.js';
import type { DeploymentSpec } from './supervisor.js';

const MIB = 1024 * 1024;
/** The daemon itself without any simulator: code, fastify, the dashboard, logs (measured about 150 MB). */
export const DAEMON_BASE_BYTES = 150 * MIB;
/** One deployment on a shared feed (docs/daemon.md, "Sizing": about 1.5 MB each). */
export const DEPLOYMENT_BYTES = 1.5 * MIB;

/** What the process uses now (the watch reads it at each sample; tests give a fake). */
export interface MemoryReading {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}
export type MemoryReader = () => MemoryReading;
export const processMemory: MemoryReader = () => {
  const m = process.memoryUsage();
  return { rssBytes: m.rss, heapUsedBytes: m.heapUsed };
};

const UNITS: Readonly<Record<string, number>> = {
  '': MIB,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: MIB,
  mb: MIB,
  mib: MIB,
  g: 1024 * MIB,
  gb: 1024 * MIB,
  gib: 1024 * MIB,
};

/** `2GB`, `1536MB`, `512m`, `2048` (MB) → bytes; units are binary (1 MB = 2^20 bytes). */
export function parseMemorySize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = UNITS[(m?.[2] ?? '').toLowerCase()];
  const bytes = m && unit !== undefined ? Math.floor(Number(m[1]) * unit) : NaN;
  if (!Number.isFinite(bytes) || bytes <= 0) {
    throw new ChainpilotError('RUNTIME_DAEMON_BAD_CONFIG', `memory limit "${text}" is not a size (for example 2GB or 1536MB)`, { retry: 'not_retryable' });
  }
  return bytes;
}

export interface MemoryEstimate {
  readonly simulators: number;
  readonly deployments: number;
  readonly simulatorBytes: number;
  readonly deploymentBytes: number;
  readonly baseBytes: number;
  readonly totalBytes: number;
}

export interface EstimateOptions {
  /** The speed override of every simulator (`--speed`): it decides which deployments share one. */
  readonly speed?: number | 'max';
  /** Heap limit of each simulator worker in MB (default DEFAULT_SIM_HEAP_MB): its budget. */
  readonly simHeapMb?: number;
}

/**
 * Simulators × their heap limit + deployments × DEPLOYMENT_BYTES + DAEMON_BASE_BYTES, over the valid
 * specs. A simulator is one shared endpoint `sim:<seed>:<speed>`, or the own simulator of a live
 * deployment on simulator endpoints; remote deployments add none.
 */
export function estimateMemory(specs: readonly DeploymentSpec[], o: EstimateOptions = {}): MemoryEstimate {
  const keys = new Set<string>();
  let own = 0;
  let deployments = 0;
  for (const s of specs) {
    if (!('loaded' in s)) continue;
    deployments += 1;
    const key = endpointKey(s.loaded, o.speed);
    if (key === undefined) own += s.loaded.deployment.endpoints.remote ? 0 : 1;
    else if (key.startsWith('sim:')) keys.add(key);
  }
  const simulators = keys.size + own;
  const simulatorBytes = simulators * (o.simHeapMb ?? DEFAULT_SIM_HEAP_MB) * MIB;
  const deploymentBytes = Math.ceil(deployments * DEPLOYMENT_BYTES);
  return {
    simulators,
    deployments,
    simulatorBytes,
    deploymentBytes,
    baseBytes: DAEMON_BASE_BYTES,
    totalBytes: simulatorBytes + deploymentBytes + DAEMON_BASE_BYTES,
  };
}

export const mb = (bytes: number): string => `${Math.round(bytes / MIB)} MB`;

/** Throws `RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED` when `estimate` exceeds `limitBytes`. */
export function assertFits(estimate: MemoryEstimate, limitBytes: number, when: 'start' | 'reload'): void {
  if (estimate.totalBytes <= limitBytes) return;
  throw new ChainpilotError(
    'RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED',
    `refusing to ${when}: the deployments need about ${mb(estimate.totalBytes)} (${estimate.simulators} simulator(s) × their heap limit = ${mb(estimate.simulatorBytes)}, ${estimate.deployments} deployment(s) = ${mb(estimate.deploymentBytes)}, base ${mb(estimate.baseBytes)}), more than the memory limit of ${mb(limitBytes)}; raise --memory-limit, or run fewer deployments or feeds (simulators)`,
    { retry: 'not_retryable', context: { estimateBytes: estimate.totalBytes, limitBytes } },
  );
}

export interface MemoryWatchOptions {
  readonly limitBytes: number;
  readonly clock: Clock;
  readonly read?: MemoryReader;
  /** Sampling period on `clock` (default 5 s). */
  readonly everyMs?: number;
  /** Turns high at this share of the limit (default 90). */
  readonly highPct?: number;
  /** Clears below this share (default 80). */
  readonly clearPct?: number;
  /** Called on each change of state, with the reading that caused it. */
  readonly onChange?: (high: boolean, reading: MemoryReading, limitBytes: number) => void;
}

export interface MemoryWatch {
  /** Reads once and updates the state (the timer calls it; tests too). */
  sample(): MemoryReading;
  /** The readiness reason while high, else undefined. */
  reason(): string | undefined;
  /** RSS, heap, limit and the high flag as gauges (no labels). */
  readonly metrics: MetricsExtension;
  /** Starts sampling every `everyMs` of the clock. */
  start(): void;
  stop(): void;
}

export function createMemoryWatch(o: MemoryWatchOptions): MemoryWatch {
  const read = o.read ?? processMemory;
  const highAt = (o.limitBytes * (o.highPct ?? 90)) / 100;
  const clearBelow = (o.limitBytes * (o.clearPct ?? 80)) / 100;
  let high = false;
  let last: MemoryReading | undefined;
  let timer: TimerHandle | undefined;
  let running = false;
  const watch: MemoryWatch = {
    sample() {
      const r = read();
      last = r;
      const next = high ? r.rssBytes >= clearBelow : r.rssBytes >= highAt;
      if (next !== high) {
        high = next;
        o.onChange?.(high, r, o.limitBytes);
      }
      return r;
    },
    reason: () =>
      high && last
        ? `RUNTIME_DAEMON_MEMORY_HIGH: RSS ${mb(last.rssBytes)} is ${Math.round((last.rssBytes / o.limitBytes) * 100)} % of the memory limit ${mb(o.limitBytes)}`
        : undefined,
    metrics(registry) {
      const gauge = (name: string, help: string, value: () => number): void => {
        registry.registerMetric(
          new Gauge({
            name,
            help,
            registers: [],
            collect() {
              this.set(value());
            },
          }),
        );
      };
      gauge('chainpilot_daemon_rss_bytes', "Resident set size of the daemon's process (every simulator worker included)", () => watch.sample().rssBytes);
      gauge('chainpilot_daemon_heap_used_bytes', "V8 heap used by the daemon's main thread", () => (last ?? watch.sample()).heapUsedBytes);
      gauge('chainpilot_daemon_memory_limit_bytes', 'The configured memory ceiling (--memory-limit)', () => o.limitBytes);
      gauge('chainpilot_daemon_memory_high', '1 while RSS is near the memory ceiling (not ready), else 0', () => (high ? 1 : 0));
    },
    start() {
      running = true;
      const tick = (): void => {
        if (!running) return;
        watch.sample();
        timer = o.clock.setTimeout(tick, o.everyMs ?? 5_000);
      };
      tick();
    },
    stop() {
      running = false;
      if (timer !== undefined) o.clock.clearTimeout(timer);
    },
  };
  return watch;
}
