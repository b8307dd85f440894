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
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { ChainpilotError, describeError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { ExecutionReport, ExecutionSink, Executor, OrderIntent } from '../../engine/execution-port.js';
import { encodeIntent } from '../journal/codec.js';
import type { IntentJournal, IntentRecord } from '../journal/journal.js';
import { checkRedisDurability, openRedisJournal, type RedisJournal } from '../journal/redis-journal.js';
import { DEFAULT_QUEUE_PREFIX, DEFAULT_WALLET_CONCURRENCY, reportGroupOf, walletQueueName, type IntentJobData } from './queue-names.js';
import { holdWalletForEngine, type EngineHold } from './engine-lease.js';
import { decodeReport } from './report-codec.js';
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

const DEDUP_LIMIT = 100_000;

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
  const seen = new Set<string>();
  const inflight = new Set<string>();
  let settled: (() => void) | undefined;
  let phase: 'idle' | 'ready' | 'running' | 'stopped' = 'idle';
  let accepting = true;
  let prepared: Promise<void> | undefined;
  let loop: Promise<void> | undefined;
  const counters = { applied: 0, duplicates: 0, loopErrors: 0, unknownSubmits: 0, lagMs: undefined as number | undefined };

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
      try {
        await redis.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
      } catch (e) {
        if (!(e instanceof Error) || !e.message.includes('BUSYGROUP')) throw e;
      }
    })());

  const deliver = (r: ExecutionReport): void => {
    const key = r.type === 'filled' && r.fill.signature !== undefined ? `sig:${r.fill.signature}` : `${r.type}:${r.intentId}`;
    if (seen.has(key)) {
      counters.duplicates++;
      log.info({ intentId: r.intentId, type: r.type }, 'duplicate report dropped');
      return;
    }
    seen.add(key);
    if (seen.size > DEDUP_LIMIT) seen.delete(seen.values().next().value as string);
    counters.applied++;
    if (inflight.delete(r.intentId) && inflight.size === 0) settled?.();
    if (sink) sink(r);
    else early.push(r);
  };

  /** Reads one batch (own pending entries first, then new ones), applies and acknowledges it. Returns entries read. */
  const readBatch = async (blockMs: number): Promise<number> => {
    let n = 0;
    for (const from of ['0', '>']) {
      const args: (string | number)[] = ['GROUP', group, consumer, 'COUNT', 256];
      if (from === '>' && blockMs > 0) args.push('BLOCK', blockMs);
      const res = (await reader.call('XREADGROUP', ...args, 'STREAMS', stream, from)) as [string, [string, string[] | null][]][] | null;
      const entries = res?.[0]?.[1] ?? [];
      for (const [id, fields] of entries) {
        // A pending entry whose body was trimmed comes back without fields: nothing to apply.
        const text = fields ? fields[fields.indexOf('r') + 1] : undefined;
        try {
          if (text !== undefined) deliver(decodeReport(text));
          counters.lagMs = Math.max(0, wallClockMs() - Number(id.split('-')[0]));
        } catch (e) {
          counters.loopErrors++;
          log.error({ entry: id, err: describeError(e) }, 'undecodable report acknowledged and skipped');
        }
        await redis.xack(stream, group, id);
      }
      if (entries.length > 0) await trimAcknowledged();
      n += entries.length;
      if (from === '0' && entries.length > 0) return n; // finish the pending list before reading new entries
    }
    return n;
  };

  /**
   * Trims the stream below the oldest entry some group has not acknowledged (its oldest pending
   * entry, or the entry after its last delivered one): never what another group still has to read.
   */
  const trimAcknowledged = async (): Promise<void> => {
    const groups = ((await redis.xinfo('GROUPS', stream)) as unknown[][]).map(toRecord);
    let floor: string | undefined;
    for (const g of groups) {
      const name = typeof g['name'] === 'string' ? g['name'] : '';
      const delivered = g['last-delivered-id'];
      let first = typeof delivered === 'string' ? delivered : '0-0';
      if (Number(g['pending'] ?? 0) > 0) {
        const summary = (await redis.xpending(stream, name)) as [number, string | null, string | null, unknown];
        if (summary[1] !== null) first = summary[1];
      }
      if (floor === undefined || compareIds(first, floor) < 0) floor = first;
    }
    if (floor !== undefined && floor !== '0-0') await redis.xtrim(stream, 'MINID', floor);
  };

  const backlog = async (): Promise<{ jobs: number; unresolved: number }> => {
    const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused', 'waiting-children');
    const jobs = Object.values(c).reduce((a, b) => a + b, 0);
    return { jobs, unresolved: (await journal.unresolved()).length };
  };

  const runLoop = async (): Promise<void> => {
    while (phase === 'running') {
      try {
        await readBatch(500);
      } catch (e) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() changes phase during the await
        if (phase !== 'running') return;
        counters.loopErrors++;
        log.warn({ err: describeError(e) }, 'reading reports failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };

  const addJob = (intent: OrderIntent): Promise<unknown> =>
    queue.add(
      'intent',
      { intent: encodeIntent(intent) },
      {
        jobId: intent.id,
        attempts: o.jobAttempts ?? 1000,
        backoff: { type: 'fixed', delay: o.retryDelayMs ?? 1000 },
        removeOnComplete: { count: 10_000 },
        removeOnFail: { count: 10_000 },
      },
    );

  /** Adds the job again (idempotent by job id) until Redis answers, then reports it accepted. */
  const settleUnknownSubmit = async (intent: OrderIntent, first: Promise<unknown>): Promise<void> => {
    let attempt: Promise<unknown> = first;
    for (let n = 0; ; n++) {
      try {
        await attempt;
        log.info({ intentId: intent.id }, 'the intent whose queueing was unknown is in the queue');
        sink?.({ type: 'accepted', intentId: intent.id, at: o.clock.now() });
        return;
      } catch (e) {
        if (phase === 'stopped') {
          log.warn({ intentId: intent.id, err: describeError(e) }, 'stopped before the unknown submit was settled; the next start reconciles the journal');
          return;
        }
        counters.loopErrors++;
        log.warn({ intentId: intent.id, err: describeError(e) }, 'adding the intent again failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * 2 ** Math.min(n, 5))));
        attempt = addJob(intent);
      }
    }
  };

  const executor: QueueExecutor = {
    wallet: o.wallet,
    journal,
    async catchUp() {
      await prepare();
      const timeoutMs = o.catchUpTimeoutMs ?? 120_000;
      const deadline = wallClockMs() + timeoutMs;
      for (;;) {
        await readBatch(100);
        const b = await backlog();
        if (b.jobs === 0 && b.unresolved === 0) break;
        if (wallClockMs() > deadline) {
          throw new ChainpilotError(
            'QUEUE_CATCH_UP_TIMEOUT',
            `wallet ${o.wallet} still has ${b.jobs} queued job(s) and ${b.unresolved} unresolved intent(s) after ${timeoutMs} ms; start \`chainpilot worker\` for it or raise execution.queue.catchUpTimeout`,
            {
              retry: 'retryable',
              context: { wallet: o.wallet, jobs: b.jobs, unresolved: b.unresolved },
            },
          );
        }
      }
      while ((await readBatch(0)) > 0) {
        /* drain everything reported so far */
      }
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
      const added = addJob(intent);
      const timeoutMs = o.submitTimeoutMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), timeoutMs)));
      let outcome: 'added' | 'timeout' | { error: unknown };
      try {
        outcome = await Promise.race([added.then(() => 'added' as const), timedOut]);
      } catch (e) {
        outcome = { error: e };
      } finally {
        clearTimeout(timer);
      }
      if (outcome === 'added') {
        sink?.({ type: 'accepted', intentId: intent.id, at: o.clock.now() });
        return;
      }
      // Redis may have stored the job (its reply lost, or still on its way): the outcome is unknown.
      // The job id is the intent id, so adding it again is idempotent: keep adding in the background
      // until Redis answers; the worker's report settles the intent either way.
      counters.unknownSubmits++;
      const why = outcome === 'timeout' ? `no answer within ${timeoutMs} ms` : describeError(outcome.error);
      log.warn({ intentId: intent.id, why }, 'queueing the intent has an unknown outcome; adding it again until Redis answers');
      void settleUnknownSubmit(intent, added);
      throw new ChainpilotError('QUEUE_SUBMIT_UNKNOWN', `queueing intent ${intent.id} has an unknown outcome (${why}); it stays in flight until its report`, {
        retry: 'unknown_outcome',
        context: { intentId: intent.id },
      });
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

    async stats() {
      const [c, workers, lease, groups] = await Promise.all([
        queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused'),
        queue.getWorkersCount(),
        readLeaseStats(redis, prefix, o.wallet),
        redis.xinfo('GROUPS', stream).catch(() => []) as Promise<unknown[]>, // no stream before the first start: nothing behind
      ]);
      const own = (groups as unknown[][]).map(toRecord).find((g) => g['name'] === group);
      const behind = Number(own?.['lag'] ?? 0) + Number(own?.['pending'] ?? 0);
      return {
        wallet: o.wallet,
        queueDepth: (c['waiting'] ?? 0) + (c['delayed'] ?? 0) + (c['prioritized'] ?? 0) + (c['paused'] ?? 0),
        activeJobs: c['active'] ?? 0,
        activeWorkers: workers,
        leaseTakeovers: lease.takeovers,
        leaseEpoch: lease.epoch,
        reportsApplied: counters.applied,
        duplicateReports: counters.duplicates,
        reportsBehind: behind,
        reportLagMs: counters.lagMs,
        loopErrors: counters.loopErrors,
      };
    },
  };
  return executor;
}

function toRecord(flat: unknown[]): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) r[String(flat[i])] = flat[i + 1];
  return r;
}

/** Orders two stream entry ids (`ms-seq`). */
function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map((x) => BigInt(x));
  const [bm = 0n, bs = 0n] = b.split('-').map((x) => BigInt(x));
  return am === bm ? (as === bs ? 0 : as < bs ? -1 : 1) : am < bm ? -1 : 1;
}
