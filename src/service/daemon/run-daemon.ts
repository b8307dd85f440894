/**
 * The daemon's composition root: reads the deployment files, runs each as a deployment handle
 * under the supervisor, shares one feed connection per endpoint, and serves the control plane on
 * loopback. It returns a handle of its own (`reload`, `stop`); the `chainpilot daemon` command owns
 * the signals and the terminal.
 */
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import {
  ChainpilotError,
  createLifecycle,
  describeError,
  lifecycleMembers,
  silentLogger,
  systemClock,
  type Clock,
  type Lifecycle,
  type Logger,
} from '../../core/index.js';
import type { RuntimeDeps } from '../../runtime/compose/assembly.js';
import type { DecisionEntry, DeploymentEvent, ShutdownReport } from '../../runtime/handle/deployment-handle.js';
import { resolveDaemonToken, type ResolvedToken } from './api-token.js';
import { buildControlApp } from './control-app.js';
import { sameSummary } from '../api-views.js';
import type { DaemonView, MetricsExtension, SlotView } from '../service-port.js';
import { createDaemonMetrics, type DaemonMetrics } from './daemon-metrics.js';
import { expandDeploymentPaths, readDeploymentSpecs } from './deployment-files.js';
import { assertFits, createMemoryWatch, estimateMemory, type EstimateOptions, type MemoryReader, type MemoryReading } from './memory-budget.js';
import { createEventLog, type LoggedEntry } from '../event-log.js';
import { BOOK_WRITE_DELAY_MS, BOOK_WRITE_SLICE_MS, createSlicedTurns } from '../../runtime/store/sliced-turns.js';
import { createFrontLagMetrics, startFrontThread, type FrontThread } from './front/front-thread.js';
import { createSupervisor, type DeploymentFactory, type DepsProvider, type ReloadDiff, type Supervisor } from './supervisor.js';

export const DEFAULT_LISTEN = '127.0.0.1:8790';

export interface DaemonOptions {
  /** Deployment files and directories. */
  readonly paths: readonly string[];
  readonly factory: DeploymentFactory;
  readonly deps: DepsProvider;
  /** `host:port` of the control server (default 127.0.0.1:8790; port 0 picks a free one). */
  readonly listen?: string;
  readonly tokenEnv?: string;
  /**
   * Where the generated API token is written when none is in the environment, and where paper
   * deployments whose file names no `store.path` keep their store (`<dataDir>/stores/<name>.db`).
   */
  readonly dataDir: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly version: string;
  /** Drain deadline for stops and restarts (default: each deployment's `shutdown.drain`). */
  readonly drainMs?: number;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Bounded history of decisions for the API and dashboard. */
  readonly historySize?: number;
  readonly metricsExtensions?: readonly MetricsExtension[];
  /**
   * How old a `/metrics` render a scrape may get, in wall milliseconds (default 0: every scrape
   * renders; `chainpilot daemon` uses 1 000). Discrete changes (states, alerts, reloads, memory)
   * always show in the next scrape; see docs/daemon.md "Metrics".
   */
  readonly metricsMaxAgeMs?: number;
  /**
   * How old a row of `/api/deployments` may be while its slot's state did not change (wall ms,
   * default 0; `chainpilot daemon` uses 1 000): equity and open positions are at most that old.
   */
  readonly listMaxAgeMs?: number;
  /** More routes on the control app (the dashboard), each a fastify plugin over the daemon's view. */
  readonly plugins?: readonly ((daemon: DaemonView) => FastifyPluginAsync)[];
  /**
   * Read and answer the control API on a thread of its own (front/front-thread.ts; docs/daemon.md,
   * "The front thread"), `/metrics` and `/api/deployments` from copies whose data is at most
   * `staleMs` old (wall ms); `chainpilot daemon` turns it on. Without it the app listens on the main
   * thread, beside the deployments.
   */
  readonly front?: { readonly staleMs: number };
  /** A memory ceiling: the set is refused at start and reload when its estimate exceeds it, and RSS near it turns /readyz 503. */
  readonly memory?: DaemonMemoryOptions;
}

export interface DaemonMemoryOptions {
  readonly limitBytes: number;
  /** What the estimate needs to know of the simulators (speed override, heap limit). */
  readonly estimate?: EstimateOptions;
  /** The process's memory (default `process.memoryUsage()`; tests give a fake). */
  readonly read?: MemoryReader;
  /** Sampling period on the daemon's clock (default 5 s). */
  readonly everyMs?: number;
  /** Called when RSS crosses 90 % of the limit (`high`) and when it drops back below 80 %. */
  readonly onChange?: (high: boolean, reading: MemoryReading, limitBytes: number) => void;
}

/**
 * A {@link Lifecycle} built running: `stop({ drainMs })` drains every deployment (each within
 * `drainMs`, default the daemon's `drainMs` option, else each deployment's own setting), then
 * closes the server; its report is the deployments' shutdown reports.
 */
export interface RunningDaemon extends DaemonView, Lifecycle<ShutdownReport[]> {
  readonly supervisor: Supervisor;
  readonly metrics: DaemonMetrics;
  /** `http://host:port` the control server listens on. */
  readonly url: string;
  readonly token: ResolvedToken;
  readonly app: FastifyInstance;
  /** The diff of the first load. */
  readonly initial: ReloadDiff;
  /** Re-reads the files and applies the difference (SIGHUP, POST /api/reload). */
  reload(): Promise<ReloadDiff>;
}

/** `host:port` → parts; refuses what cannot be listened on. */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(listen.trim());
  const port = Number(m?.[2]);
  if (!m || !Number.isInteger(port) || port > 65_535) {
    throw new ChainpilotError('RUNTIME_DAEMON_BAD_CONFIG', `listen address "${listen}" is not host:port (for example 127.0.0.1:8790)`, {
      retry: 'not_retryable',
    });
  }
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
}

/** A token reachable from the network needs at least this many characters. */
export const MIN_REMOTE_TOKEN_LENGTH = 32;

/** Why `token` is too weak to guard a non-loopback listener, or undefined when it is strong enough. */
export function weakTokenReason(token: string): string | undefined {
  if (token.trim() !== token || /\s/.test(token)) return 'it contains white space';
  if (token.length < MIN_REMOTE_TOKEN_LENGTH) return `it has ${token.length} characters, fewer than ${MIN_REMOTE_TOKEN_LENGTH}`;
  if (new Set(token).size < 8) return 'it repeats too few distinct characters';
  return undefined;
}

/** True for loopback addresses and `localhost`. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

export async function startDaemon(o: DaemonOptions): Promise<RunningDaemon> {
  const clock = o.clock ?? systemClock();
  const log = o.log ?? silentLogger();
  const env = o.env ?? process.env;
  const { host, port } = parseListen(o.listen ?? DEFAULT_LISTEN);
  const tokenEnv = o.tokenEnv ?? 'CHAINPILOT_API_TOKEN';
  if (!isLoopback(host) && !env[tokenEnv]) {
    throw new ChainpilotError(
      'RUNTIME_DAEMON_UNSAFE_LISTEN',
      `refusing to listen on ${host} (not loopback) without an API token: set ${tokenEnv}, or listen on 127.0.0.1`,
      { retry: 'not_retryable' },
    );
  }
  const weak = isLoopback(host) ? undefined : weakTokenReason(env[tokenEnv] ?? '');
  if (weak !== undefined) {
    throw new ChainpilotError(
      'RUNTIME_DAEMON_WEAK_TOKEN',
      `refusing to listen on ${host} (not loopback) with a weak API token in ${tokenEnv}: ${weak}; generate one with \`openssl rand -hex 32\``,
      { retry: 'not_retryable' },
    );
  }
  const files = expandDeploymentPaths(o.paths);
  const initialSpecs = readDeploymentSpecs(files, env);
  if (initialSpecs.every((s) => 'error' in s)) {
    throw new ChainpilotError(
      'CONFIG_INVALID',
      `no deployment file is valid:\n${initialSpecs.map((s) => ('error' in s ? `  ${s.error.code}: ${s.error.message}` : '')).join('\n')}`,
      { retry: 'not_retryable' },
    );
  }
  const mem = o.memory;
  if (mem) assertFits(estimateMemory(initialSpecs, mem.estimate), mem.limitBytes, 'start');
  const token = resolveDaemonToken({ env, envName: tokenEnv, dataDir: o.dataDir });
  const listenerError = (e: unknown): void => log.error({ err: describeError(e) }, 'a daemon event listener threw');
  const decisions = createEventLog<DecisionEntry>(o.historySize ?? 20_000, listenerError);
  const events = createEventLog<DeploymentEvent>(o.historySize ?? 20_000, listenerError);
  // eslint-disable-next-line prefer-const -- assigned once the supervisor exists (metrics read its slots)
  let supervisor: Supervisor;
  const memoryWatch = mem
    ? createMemoryWatch({
        limitBytes: mem.limitBytes,
        clock,
        ...(mem.read ? { read: mem.read } : {}),
        ...(mem.everyMs !== undefined ? { everyMs: mem.everyMs } : {}),
        onChange(high, r, limit) {
          metrics.changed();
          front?.changed();
          if (high) log.warn({ rssBytes: r.rssBytes, limitBytes: limit }, 'the daemon is near its memory limit: not ready until RSS drops below 80 %');
          else log.info({ rssBytes: r.rssBytes, limitBytes: limit }, 'the daemon is back under its memory limit');
          mem.onChange?.(high, r, limit);
        },
      })
    : undefined;
  const frontLag = o.front ? createFrontLagMetrics() : undefined;
  let front: FrontThread | undefined;
  const extensions = [...(o.metricsExtensions ?? []), ...(memoryWatch ? [memoryWatch.metrics] : []), ...(frontLag ? [frontLag.metrics] : [])];
  const metrics = createDaemonMetrics({
    slots: () => supervisor.list(),
    extensions,
    ...(o.metricsMaxAgeMs !== undefined ? { maxAgeMs: o.metricsMaxAgeMs } : {}),
    // every render becomes the front thread's copy of /metrics
    onRender: (text, startedAt) => front?.rendered(text, startedAt),
  });
  const lastState = new Map<string, string>();
  const lastSlot = new Map<string, SlotView>();
  supervisor = createSupervisor({
    factory: o.factory,
    deps: withStoreDir(o.deps, join(o.dataDir, 'stores'), createSlicedTurns({ sliceMs: BOOK_WRITE_SLICE_MS, delayMs: BOOK_WRITE_DELAY_MS }).defer),
    clock,
    log,
    ...(o.backoff ? { backoff: o.backoff } : {}),
    // One clock for the event log: every entry is stamped with the daemon's clock when it arrives
    // (the handle's run clock may be a simulator's, running faster than the wall). Decision entries
    // keep their run-clock time: a backtest replays them on that clock.
    onEvent(name, ev) {
      metrics.observe(name, ev);
      if (ev.type === 'decision') decisions.append(name, ev.entry);
      // State changes are logged once, from the slot (below): the handle's own would be a second copy.
      else if (ev.type !== 'state') events.append(name, { ...ev, at: clock.now() });
    },
    onSlot(slot) {
      // a change the list's row of the slot shows (a restart, a new handle too): the front thread's copies are stale
      const seen = lastSlot.get(slot.name);
      lastSlot.set(slot.name, slot);
      if (!seen || !sameSummary(seen, slot)) front?.changed();
      const before = lastState.get(slot.name);
      const key = `${slot.state}|${slot.cause?.code ?? ''}|${slot.cause?.message ?? ''}`;
      lastState.set(slot.name, key);
      if (before?.startsWith('restarting|') === true && slot.state === 'starting') metrics.restarted(slot.name);
      if (before !== key) {
        metrics.changed();
        events.append(slot.name, {
          type: 'state',
          at: clock.now(),
          state: slot.state === 'degraded' ? 'halted' : slot.state === 'restarting' ? 'failed' : slot.state,
          ...(slot.cause ? { cause: slot.cause } : {}),
        });
      }
    },
  });
  let reloading: Promise<ReloadDiff> | undefined;
  const reload = async (): Promise<ReloadDiff> => {
    // Reloads run one at a time; a second request while one runs waits for it and runs again.
    while (reloading) await reloading.catch(() => undefined);
    reloading = (async () => {
      const specs = readDeploymentSpecs(expandDeploymentPaths(o.paths), env);
      if (mem) assertFits(estimateMemory(specs, mem.estimate), mem.limitBytes, 'reload');
      const diff = await supervisor.apply(specs);
      // a removed deployment's event-fed series go with it (a changed one keeps its name and counts)
      for (const name of diff.removed) await metrics.forget(name);
      for (const name of diff.removed) lastSlot.delete(name);
      if (diff.removed.length > 0) front?.changed();
      return diff;
    })();
    try {
      return await reloading;
    } finally {
      reloading = undefined;
    }
  };
  const view: DaemonView = { supervisor, decisions, events };
  const app = buildControlApp({
    supervisor,
    decisions,
    metrics,
    reload,
    token: token.token,
    version: o.version,
    clock,
    log,
    plugins: (o.plugins ?? []).map((plugin) => plugin(view)),
    ...(o.listMaxAgeMs !== undefined ? { listMaxAgeMs: o.listMaxAgeMs } : {}),
    ...(memoryWatch ? { daemonReasons: () => [memoryWatch.reason()].filter((r): r is string => r !== undefined) } : {}),
  });
  const initial = await supervisor.apply(initialSpecs);
  let url: string;
  try {
    if (o.front) {
      front = await startFrontThread({
        host,
        port,
        app,
        token: token.token,
        staleMs: o.front.staleMs,
        metricsContentType: metrics.contentType,
        log,
        lag: frontLag ?? createFrontLagMetrics(),
      });
      url = front.url;
    } else url = await app.listen({ host, port });
  } catch (e) {
    await supervisor.stop({ drainMs: 0 });
    throw new ChainpilotError('RUNTIME_DAEMON_LISTEN_FAILED', `cannot listen on ${host}:${port}: ${describeError(e)}; pick another --listen address`, {
      retry: 'not_retryable',
      cause: e,
    });
  }
  const address = app.server.address();
  if (!front && address && typeof address === 'object') url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  memoryWatch?.start();
  let reports: ShutdownReport[] = [];
  const life = createLifecycle(
    {
      name: 'daemon',
      drain: async (_signal, drainMs) => {
        memoryWatch?.stop();
        reports = await supervisor.stop(drainMs === undefined ? {} : { drainMs });
      },
      halt: async () => {
        memoryWatch?.stop();
        await supervisor.stop({ drainMs: 0 });
        metrics.close();
        await (front ? front.close() : app.close());
      },
      report: () => reports,
      notReady: () => [memoryWatch?.reason()].filter((r): r is string => r !== undefined),
    },
    { log: log, clock, delegated: true, running: true, ...(o.drainMs !== undefined ? { defaultDrainMs: o.drainMs } : {}) },
  );
  return {
    ...lifecycleMembers(life),
    ...view,
    supervisor,
    metrics,
    url,
    token,
    app,
    initial,
    reload,
  };
}

/**
 * `deps` with the daemon's store directory for paper deployments and the one queue every paper
 * book's writes are drained from (sliced-turns.ts); a provider's own values win.
 */
function withStoreDir(deps: DepsProvider, storeDir: string, paperBookWrites: (write: () => void) => void): DepsProvider {
  return {
    async acquire(loaded) {
      const acquired = await deps.acquire(loaded);
      const withDir: RuntimeDeps = { storeDir, paperBookWrites, ...acquired.deps };
      return { deps: withDir, release: () => acquired.release() };
    },
  };
}

/** The reload diff as lines a person can read. */
export function formatReloadDiff(d: ReloadDiff): string {
  const lines: string[] = [];
  const list = (label: string, names: readonly string[]): void => {
    if (names.length > 0) lines.push(`${label}: ${names.join(', ')}`);
  };
  list('added', d.added);
  list('removed', d.removed);
  list('changed', d.changed);
  list('unchanged', d.unchanged);
  for (const i of d.invalid) lines.push(`invalid ${i.file}${i.kept ? ` (keeps running: ${i.kept})` : ''}: ${i.code}: ${i.message}`);
  return lines.join('\n');
}

export type { LoggedEntry };
