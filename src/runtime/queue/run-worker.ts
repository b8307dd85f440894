/**
 * `chainpilot worker --redis URL FILE...`: the worker composition root (docs/scale-out.md). For each
 * deployment file whose wallet key this host holds, a BullMQ worker on that wallet's queue runs the
 * live executor's rules against the Redis journal, with the deployment's RPC, swap service and
 * executor caps. Several wallets per worker; any number of workers on any machine.
 *
 * Order of start-up: load every deployment (refusing what cannot run here) → connect Redis and check
 * its durability → start one wallet worker per distinct wallet.
 */
import { liveExecutorSettings } from '../live/live-executor-settings.js';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import { createRpcClient, createSwapClient } from '../../client/index.js';
import {
  ChainpilotError,
  createLifecycle,
  createLogger,
  createRedactor,
  describeError,
  lifecycleMembers,
  systemClock,
  type Clock,
  type Lifecycle,
  type Logger,
  type Redactor,
} from '../../core/index.js';
import { loadDeployment, type Deployment } from '../../config/index.js';
import { checkRedisDurability } from '../../executors/journal/redis-journal.js';
import type { LiveSettings, LiveSettingsInput } from '../../executors/live/live-settings.js';
import { DEFAULT_QUEUE_PREFIX, DEFAULT_WALLET_CONCURRENCY } from '../../executors/queue/queue-names.js';
import { startWalletWorker, type WalletWorker, type WalletWorkerOptions, type WalletWorkerStats } from '../../executors/queue/wallet-worker.js';
import { walletSigner } from '../live/live-wallet.js';

export interface StartWorkersOptions {
  readonly redisUrl: string;
  /** Deployment YAML files; those with a wallet key and remote RPC and swap endpoints are worked for. */
  readonly files: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly log?: Logger;
  readonly clock?: Clock;
  /** Worker id in logs and lease ownership (default `host:pid`). */
  readonly holder?: string;
  /** Overrides of the live executor's settings (tests: short polls, small block windows). */
  readonly settings?: Partial<LiveSettings>;
  readonly leaseTtlMs?: number;
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  /** Tests on a throw-away Redis only: skip the durability check. */
  readonly unsafeAllowVolatileRedis?: boolean;
  /** Test hook: named instants of every job (crash tests kill the process there). */
  readonly probe?: WalletWorkerOptions['probe'];
  /** Aborting it while the workers start (Redis unreachable, say) disconnects Redis and makes the start throw. */
  readonly signal?: AbortSignal;
}

/** What a stop of the workers ended with. */
export interface WorkersReport {
  readonly workers: readonly WalletWorkerStats[];
  /**
   * True when the drain time passed (a job still running, or Redis unreachable): Redis was
   * disconnected and the workers closed without waiting; a running job's lock lapses and another
   * worker resumes it through the journal.
   */
  readonly abandoned: boolean;
}

/**
 * A {@link Lifecycle} built running. `stop({ drainMs })` (default {@link WORKER_DRAIN_MS}) stops
 * every wallet worker with that deadline; when they have not stopped by then it gives up (see
 * {@link WorkersReport.abandoned}).
 */
export interface RunningWorkers extends Lifecycle<WorkersReport> {
  readonly wallets: readonly string[];
  stats(): readonly WalletWorkerStats[];
}

interface WalletPlan {
  readonly deployment: Deployment;
  readonly file: string;
}

/**
 * The live settings a wallet worker runs a deployment's intents with: the same mapping as every live
 * composition root (caps, programs, retries, inspection, slippage ramp, priority fee), then `override`.
 */
export function workerSettings(d: Deployment, override?: Partial<LiveSettings>): LiveSettingsInput {
  return { ...liveExecutorSettings(d), ...override };
}

/** Loads the deployments and starts a worker per wallet; see the module comment. */
export async function startWorkers(o: StartWorkersOptions): Promise<RunningWorkers> {
  const redactor = createRedactor([o.redisUrl]);
  const log = o.log ?? createLogger({ redactor, level: 'info', name: 'worker' });
  const plans = planWallets(o, redactor, log);
  const redis = new Redis(o.redisUrl, { maxRetriesPerRequest: null });
  redis.on('error', (e: Error) => log.warn({ err: redactor.redact(describeError(e)) }, 'redis connection error; reconnecting'));
  const workers: WalletWorker[] = [];
  const closers: (() => Promise<void>)[] = [];
  // Commands wait for Redis forever (maxRetriesPerRequest: null): a stop during the start must cut them.
  // A disconnect while ioredis waits to reconnect leaves the queued command pending for ever, so the
  // stop also settles the wait itself.
  let stopped: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    stopped = () => reject(new ChainpilotError('CORE_ABORTED', 'the worker was stopped before it started', { retry: 'not_retryable' }));
  });
  aborted.catch(() => undefined);
  const cut = (): void => {
    redis.disconnect();
    stopped();
  };
  o.signal?.addEventListener('abort', cut, { once: true });
  try {
    if (o.signal?.aborted) throw new ChainpilotError('CORE_ABORTED', 'the worker was stopped before it started', { retry: 'not_retryable' });
    if (!o.unsafeAllowVolatileRedis) await Promise.race([checkRedisDurability(redis), aborted]);
    const holder = o.holder ?? `${hostname()}:${process.pid}`;
    for (const [wallet, p] of plans) {
      const d = p.deployment;
      const remote = d.endpoints.remote;
      const rpc = createRpcClient({
        url: remote?.rpcUrl ?? '',
        ...(remote?.rpcApiKey !== undefined ? { apiKey: remote.rpcApiKey } : {}),
        redactor,
        timeoutMs: 5_000,
      });
      const swap = createSwapClient({ url: remote?.swapUrl ?? '', ...(remote ? { apiKey: remote.apiKey } : {}), redactor, timeoutMs: 10_000 });
      closers.push(
        () => rpc.close(),
        () => swap.close(),
      );
      workers.push(
        startWalletWorker({
          redis,
          prefix: d.execution.queue?.prefix ?? DEFAULT_QUEUE_PREFIX,
          concurrency: d.execution.queue?.concurrency ?? DEFAULT_WALLET_CONCURRENCY,
          signer: walletSigner(d),
          rpc,
          swap,
          clock: o.clock ?? systemClock(),
          log,
          holder,
          // the same mapping as every live composition root: caps, programs, retries, inspection, slippage ramp, priority fee
          settings: workerSettings(d, o.settings),
          ...(o.leaseTtlMs !== undefined ? { leaseTtlMs: o.leaseTtlMs } : {}),
          ...(o.lockDurationMs !== undefined ? { lockDurationMs: o.lockDurationMs } : {}),
          ...(o.stalledIntervalMs !== undefined ? { stalledIntervalMs: o.stalledIntervalMs } : {}),
          ...(o.probe ? { probe: o.probe } : {}),
        }),
      );
      log.info({ wallet, deployment: d.name }, 'working the wallet queue');
    }
  } catch (e) {
    for (const c of closers) await c();
    redis.disconnect();
    if (o.signal?.aborted)
      throw new ChainpilotError('CORE_ABORTED', `the worker was stopped while starting (${describeError(e)})`, { retry: 'not_retryable', cause: e });
    throw e;
  } finally {
    o.signal?.removeEventListener('abort', cut);
  }
  const stats = (): WalletWorkerStats[] => workers.map((w) => w.stats());
  let drained = false;
  const life = createLifecycle(
    {
      name: 'workers',
      drain: async (_signal, drainMs) => {
        await Promise.all(workers.map((w) => w.stop({ drainMs })));
        drained = true;
      },
      halt: async () => {
        if (!drained) {
          // the drain time passed (Redis unreachable, or a job still running): give up waiting
          redis.disconnect();
          for (const w of workers)
            void w
              .stop({ drainMs: 0 })
              .catch((e: unknown) => log.warn({ err: redactor.redact(describeError(e)) }, 'closing a worker after the drain time failed'));
          for (const c of closers) await c();
          return;
        }
        for (const c of closers) await c();
        await redis.quit().catch(() => redis.disconnect());
      },
      report: () => ({ workers: stats(), abandoned: !drained }),
      notReady: () => workers.flatMap((w) => w.health().reasons),
    },
    { log: log, clock: o.clock ?? systemClock(), defaultDrainMs: WORKER_DRAIN_MS, running: true },
  );
  return { ...lifecycleMembers(life), wallets: workers.map((w) => w.wallet), stats };
}

/** One plan per distinct wallet; refuses deployments this host cannot work for, naming the field. */
function planWallets(o: StartWorkersOptions, redactor: Redactor, log: Logger): Map<string, WalletPlan> {
  const plans = new Map<string, WalletPlan>();
  for (const file of o.files) {
    const loaded = loadDeployment(file, o.env ? { env: o.env } : {});
    for (const s of loaded.secrets) redactor.add(s);
    const d = loaded.deployment;
    if (!d.wallet) {
      log.info({ file }, 'no wallet key in this deployment: not worked here');
      continue;
    }
    const remote = d.endpoints.remote;
    if (!remote?.rpcUrl || !remote.swapUrl) {
      throw new ChainpilotError(
        'RUNTIME_LIVE_ENDPOINTS_MISSING',
        `${file}: a worker needs endpoints.remote.rpcUrl and endpoints.remote.swapUrl (the embedded simulator's ledger lives in one process and cannot be shared by workers)`,
        {
          retry: 'not_retryable',
          context: { file },
        },
      );
    }
    if (d.live.maxTradeSpendLamports === undefined || d.live.maxDaySpendLamports === undefined) {
      throw new ChainpilotError('RUNTIME_LIVE_LIMITS_MISSING', `${file}: a worker needs live.maxTradeSpendSol and live.maxDaySpendSol (the executor caps)`, {
        retry: 'not_retryable',
        context: { file },
      });
    }
    const wallet = walletSigner(d).address;
    if (plans.has(wallet)) {
      log.warn({ file, wallet }, 'wallet already worked for by an earlier deployment file; its caps apply');
      continue;
    }
    plans.set(wallet, { deployment: d, file });
  }
  if (plans.size === 0) {
    throw new ChainpilotError(
      'QUEUE_NO_WALLETS',
      `none of ${o.files.length} deployment file(s) has a wallet key (wallet.keypairPath or wallet.secretKey); a worker executes only for wallets it holds keys for`,
      { retry: 'not_retryable' },
    );
  }
  return plans;
}

/** Default time `runWorkers` lets running jobs finish after a stop signal (ms). */
export const WORKER_DRAIN_MS = 10_000;

/**
 * Runs workers until `signal` aborts or SIGINT/SIGTERM (CLI), then stops them gracefully within
 * `drainMs` (default {@link WORKER_DRAIN_MS}); past it, or when the signal comes while Redis is
 * unreachable, it gives up waiting (running jobs resume elsewhere through the journal) and returns.
 */
export async function runWorkers(
  o: StartWorkersOptions & { readonly signal?: AbortSignal; readonly out?: (t: string) => void; readonly drainMs?: number },
): Promise<void> {
  const out = o.out ?? ((t: string) => void process.stdout.write(t));
  const stopping = new AbortController();
  const stop = (): void => stopping.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  o.signal?.addEventListener('abort', stop, { once: true });
  try {
    let running: RunningWorkers;
    try {
      running = await startWorkers({ ...o, signal: stopping.signal });
    } catch (e) {
      if (stopping.signal.aborted) {
        out('stopped before the workers started\n');
        return;
      }
      throw e;
    }
    out(`chainpilot worker: ${running.wallets.length} wallet(s): ${running.wallets.join(', ')}; Ctrl-C stops\n`);
    if (!stopping.signal.aborted) await new Promise<void>((resolve) => stopping.signal.addEventListener('abort', () => resolve(), { once: true }));
    const drainMs = o.drainMs ?? WORKER_DRAIN_MS;
    const report = await running.stop({ drainMs });
    if (report.abandoned) {
      out(`stopped after the drain time (${drainMs} ms) without waiting further (Redis unreachable or a job still running; other workers resume it)\n`);
      return;
    }
    const s = report.workers;
    out(
      `stopped: ${s.reduce((n, w) => n + w.jobsCompleted, 0)} job(s) completed, ${s.reduce((n, w) => n + w.fenced, 0)} fenced, ${s.reduce((n, w) => n + w.takeovers, 0)} lease take-over(s)\n`,
    );
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    o.signal?.removeEventListener('abort', stop);
  }
}
