/**
 * The queue executor: the engine's side of scale-out (design.md §8). Intents leave as BullMQ jobs
 * (job id = intent id) on the wallet's queue, whose global concurrency is `concurrency` (default 32);
 * only the worker holding the wallet's lease takes them, driving up to that many at once with sends
 * kept in decision order (wallet-worker.ts), so one worker drives a wallet at a time across every
 * machine. Reports come back on the wallet's report stream through a
 * consumer group: each entry is applied, then acknowledged; after a restart the engine first
 * re-reads what it had not acknowledged, so nothing is lost, and duplicates (one key per signature,
 * or per intent for outcomes without one) are dropped and counted.
 *
 * `catchUp()` is the start-up rule of the live executor for a queue: it waits until the wallet's
 * queue is empty and its journal holds nothing unresolved (workers finish what an earlier run left),
 * then drains the stream, and returns the journal's landed intents to rebuild positions from.
 *
 * This file holds the executor's lifecycle (idle → ready → running → stopped), the intents in
 * flight and the catch-up; reading the report stream is report-reader.ts, putting intents on the
 * queue (and settling a submit whose outcome is unknown) intent-submitter.ts.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { ChainpilotError, describeError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { ExecutionReport, ExecutionSink, Executor } from '../../engine/orders/execution-port.js';
import type { IntentJournal, IntentRecord } from '../journal/journal.js';
import { checkRedisDurability, openRedisJournal, type RedisJournal } from '../journal/redis-journal.js';
import { holdWalletForEngine, type EngineHold } from './engine-lease.js';
import { createIntentSubmitter } from './intent-submitter.js';
import { DEFAULT_QUEUE_PREFIX, DEFAULT_WALLET_CONCURRENCY, reportGroupOf, walletQueueName, type IntentJobData } from './queue-names.js';
import { createReportReader, type ReportReader } from './report-reader.js';
import { readLeaseStats } from './wallet-lease.js';

export interface QueueExecutorOptions {
  /** Redis URL (`redis://` or `rediss://`); may carry a password: never logged. */
  readonly url: string;
  readonly prefix?: string;
  /** Wallet address the intents trade from: its queue, journal and report stream. */
  readonly wallet: string;
  /** The run clock (timestamps of `accepted` reports). */
  readonly clock: Clock;
  readonly logger?: Logger;
  /** How long `catchUp()` waits for an earlier run's intents to settle (default 120 s). */
  readonly catchUpTimeoutMs?: number;
  /** Consumer name in the report group (default `engine`): the same name after a restart re-reads its pending entries. */
  readonly consumer?: string;
  /** Job retries after a failed run (default 1000, every `retryDelayMs`, default 1000 ms). */
  readonly jobAttempts?: number;
  readonly retryDelayMs?: number;
  /**
   * Skips the durability check (appendonly, noeviction). Tests and benchmarks against a throw-away
   * Redis only: a volatile Redis can forget a sent transaction and let it land twice.
   */
  readonly unsafeAllowVolatileRedis?: boolean;
  /** Wall clock for report lag (ms since the epoch, compared with stream entry ids); default `Date.now`. */
  readonly wallClockMs?: () => number;
  /** How long `submit` waits for Redis to store the job before its outcome is unknown (default 10 000 ms). */
  readonly submitTimeoutMs?: number;
  /** Time-to-live of this engine's hold on the wallet (default 15 000 ms; see engine-lease.ts). */
  readonly engineHoldTtlMs?: number;
  /** The wallet queue's global concurrency (`execution.queue.concurrency`, default 32). */
  readonly concurrency?: number;
}

/** Queue metrics of one wallet, for the daemon's /metrics (see docs/scale-out.md#metrics). */
export interface QueueExecutionStats {
  readonly wallet: string;
  /** Jobs waiting to run (waiting, delayed, prioritized, paused). */
  readonly queueDepth: number;
  /** Jobs running now (at most the queue's global concurrency, all in the lease holder). */
  readonly activeJobs: number;
  /** BullMQ workers connected to this wallet's queue. */
  readonly activeWorkers: number;
  /** Times a worker took the wallet's lease from a holder that never released it. */
  readonly leaseTakeovers: number;
  readonly leaseEpoch: number;
  readonly reportsApplied: number;
  readonly duplicateReports: number;
  /** Report stream entries not yet delivered to the engine, plus delivered but unacknowledged. */
  readonly reportsBehind: number;
  /** Age of the last applied report when it was applied (stream entry time → applied), ms. */
  readonly reportLagMs: number | undefined;
  readonly loopErrors: number;
}

/** What `catchUp()` found: reports of an earlier run, and the landed intents to restore positions from. */
export interface CatchUpResult {
  readonly reports: readonly ExecutionReport[];
  readonly landed: readonly IntentRecord[];
}

export interface QueueExecutor extends Executor {
  readonly wallet: string;
  /** The wallet's journal, read-only (writes fail with JOURNAL_FENCED): status, restore, checks. */
  readonly journal: IntentJournal;
  catchUp(): Promise<CatchUpResult>;
  stats(): Promise<QueueExecutionStats>;
  /** Stops (if running) and closes the Redis connections; the journal view is unusable afterwards. */
  close(): Promise<void>;
}

/** Creates the queue executor of one wallet (connections open lazily on first use). */
export function createQueueExecutor(o: QueueExecutorOptions): QueueExecutor {
  const log = o.logger ?? silentLogger();
  const prefix = o.prefix ?? DEFAULT_QUEUE_PREFIX;
  const consumer = o.consumer ?? 'engine';
  const wallClockMs = o.wallClockMs ?? (() => Date.now());
  const redis = new Redis(o.url, { maxRetriesPerRequest: null, lazyConnect: true });
  const reader = new Redis(o.url, { maxRetriesPerRequest: null, lazyConnect: true });
  for (const c of [redis, reader]) c.on('error', (e: Error) => log.warn({ err: describeError(e) }, 'redis connection error; reconnecting'));
  const queue = new Queue<IntentJobData>(walletQueueName(o.wallet), { connection: redis, prefix });
  queue.on('error', (e) => log.warn({ err: describeError(e) }, 'queue error'));
  const journal: RedisJournal = openRedisJournal({ redis, prefix, wallet: o.wallet });
  const stream = journal.keys.reports;
  /** This engine's own consumer group on the report stream. */
  const group = reportGroupOf(consumer);
  let hold: EngineHold | undefined;
  const letGo = async (): Promise<void> => {
    const h = hold;
    hold = undefined;
    await h?.release().catch((e: unknown) => log.warn({ err: describeError(e) }, 'releasing the engine hold failed; it expires on its own'));
  };

  let sink: ExecutionSink | undefined;
  const early: ExecutionReport[] = [];
  const inflight = new Set<string>();
  let settled: (() => void) | undefined;
  let phase: 'idle' | 'ready' | 'running' | 'stopped' = 'idle';
  let accepting = true;
  let prepared: Promise<void> | undefined;
  let loop: Promise<void> | undefined;
  let loopErrors = 0;
  const countLoopError = (): void => {
    loopErrors++;
  };

  const reports = createReportReader({
    redis,
    reader,
    stream,
    group,
    consumer,
    log,
    wallClockMs,
    onLoopError: countLoopError,
    onReport(r) {
      if (inflight.delete(r.intentId) && inflight.size === 0) settled?.();
      if (sink) sink(r);
      else early.push(r);
    },
  });
  const submitter = createIntentSubmitter({
    queue,
    log,
    ...(o.jobAttempts === undefined ? {} : { jobAttempts: o.jobAttempts }),
    ...(o.retryDelayMs === undefined ? {} : { retryDelayMs: o.retryDelayMs }),
    ...(o.submitTimeoutMs === undefined ? {} : { submitTimeoutMs: o.submitTimeoutMs }),
    accepted: (intent) => sink?.({ type: 'accepted', intentId: intent.id, at: o.clock.now() }),
    stopped: () => phase === 'stopped',
    onLoopError: countLoopError,
  });

  const prepare = (): Promise<void> =>
    (prepared ??= (async () => {
      if (!o.unsafeAllowVolatileRedis) {
        const { appendfsync } = await checkRedisDurability(redis);
        if (appendfsync !== undefined && appendfsync !== 'always') {
          log.warn({ appendfsync }, 'Redis appendfsync is not "always": a power loss can forget the last writes (docs/scale-out.md#redis-settings)');
        }
      }
      hold = await holdWalletForEngine({ redis, prefix, wallet: o.wallet, name: consumer, log, ...(o.engineHoldTtlMs ? { ttlMs: o.engineHoldTtlMs } : {}) });
      await queue.setGlobalConcurrency(o.concurrency ?? DEFAULT_WALLET_CONCURRENCY);
      await reports.ensureGroup();
    })());

  const runLoop = async (): Promise<void> => {
    while (phase === 'running') {
      try {
        await reports.readBatch(500);
      } catch (e) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() changes phase during the await
        if (phase !== 'running') return;
        loopErrors++;
        log.warn({ err: describeError(e) }, 'reading reports failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  const executor: QueueExecutor = {
    wallet: o.wallet,
    journal,
    async catchUp() {
      await prepare();
      await settleWallet({ wallet: o.wallet, queue, journal, reports, wallClockMs, timeoutMs: o.catchUpTimeoutMs ?? 120_000 });
      phase = phase === 'idle' ? 'ready' : phase;
      return { reports: early.splice(0), landed: await journal.landed() };
    },

    async start(s) {
      if (phase === 'running' || phase === 'stopped')
        throw new ChainpilotError('LIVE_NOT_STARTED', `start() called while the queue executor is ${phase}`, { retry: 'not_retryable' });
      // catchUp hands back what it read; started here, those reports go to the sink, never dropped
      if (phase === 'idle') early.unshift(...(await executor.catchUp()).reports);
      sink = s;
      for (const r of early.splice(0)) s(r);
      phase = 'running';
      loop = runLoop();
    },

    async submit(intent) {
      if (phase !== 'running' || !accepting) {
        throw new ChainpilotError(
          'LIVE_NOT_STARTED',
          `submit(${intent.id}) while the queue executor is ${accepting ? phase : 'stopping'}; await start() first`,
          {
            retry: 'not_retryable',
            context: { intentId: intent.id, phase },
          },
        );
      }
      inflight.add(intent.id);
      await submitter.submit(intent);
    },

    async stop(signal) {
      if (phase === 'stopped') return;
      accepting = false;
      if (phase !== 'running') {
        phase = 'stopped';
        reader.disconnect();
        await letGo();
        return;
      }
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() can run again during an await above and change phase
      if (phase === 'running' && inflight.size > 0 && !signal?.aborted) {
        await new Promise<void>((res) => {
          settled = res;
          signal?.addEventListener('abort', () => res(), { once: true });
        });
      }
      phase = 'stopped';
      await loop;
      reader.disconnect();
      await letGo();
    },

    async close() {
      await executor.stop(AbortSignal.abort());
      await letGo();
      await queue.close();
      redis.disconnect();
    },

    stats: () => queueStats({ wallet: o.wallet, prefix, queue, redis, reports, loopErrors }),
  };
  return executor;
}

/**
 * The start-up rule: waits until the wallet's queue is empty and its journal holds nothing
 * unresolved (workers finish what an earlier run left), reading reports meanwhile, then drains the
 * stream; QUEUE_CATCH_UP_TIMEOUT after `timeoutMs`.
 */
async function settleWallet(a: {
  wallet: string;
  queue: Queue<IntentJobData>;
  journal: IntentJournal;
  reports: ReportReader;
  wallClockMs: () => number;
  timeoutMs: number;
}): Promise<void> {
  const { wallet, queue, journal, reports, wallClockMs, timeoutMs } = a;
  const backlog = async (): Promise<{ jobs: number; unresolved: number }> => {
    const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused', 'waiting-children');
    const jobs = Object.values(c).reduce((x, y) => x + y, 0);
    return { jobs, unresolved: (await journal.unresolved()).length };
  };
  const deadline = wallClockMs() + timeoutMs;
  for (;;) {
    await reports.readBatch(100);
    const b = await backlog();
    if (b.jobs === 0 && b.unresolved === 0) break;
    if (wallClockMs() > deadline) {
      throw new ChainpilotError(
        'QUEUE_CATCH_UP_TIMEOUT',
        `wallet ${wallet} still has ${b.jobs} queued job(s) and ${b.unresolved} unresolved intent(s) after ${timeoutMs} ms; start \`chainpilot worker\` for it or raise execution.queue.catchUpTimeout`,
        {
          retry: 'retryable',
          context: { wallet, jobs: b.jobs, unresolved: b.unresolved },
        },
      );
    }
  }
  while ((await reports.readBatch(0)) > 0) {
    /* drain everything reported so far */
  }
}

/** The wallet's queue metrics: jobs, workers and lease from Redis, reports from the reader. */
async function queueStats(a: {
  wallet: string;
  prefix: string;
  queue: Queue<IntentJobData>;
  redis: Redis;
  reports: ReportReader;
  loopErrors: number;
}): Promise<QueueExecutionStats> {
  const { reports } = a;
  const [c, workers, lease, behind] = await Promise.all([
    a.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused'),
    a.queue.getWorkersCount(),
    readLeaseStats(a.redis, a.prefix, a.wallet),
    reports.behind(),
  ]);
  return {
    wallet: a.wallet,
    queueDepth: (c['waiting'] ?? 0) + (c['delayed'] ?? 0) + (c['prioritized'] ?? 0) + (c['paused'] ?? 0),
    activeJobs: c['active'] ?? 0,
    activeWorkers: workers,
    leaseTakeovers: lease.takeovers,
    leaseEpoch: lease.epoch,
    reportsApplied: reports.counters.applied,
    duplicateReports: reports.counters.duplicates,
    reportsBehind: behind,
    reportLagMs: reports.counters.lagMs,
    loopErrors: a.loopErrors,
  };
}
