/**
 * The worker side of scale-out: a BullMQ worker on one wallet's queue that runs each job (one
 * intent) through the live executor's rules (drive-intent.ts) against the Redis journal.
 *
 * One lease holder per wallet, several jobs at once there:
 *
 * 1. the worker takes the wallet's lease (a new epoch; a crashed holder's lease is taken over once
 *    expired) and only then starts taking the wallet's jobs; a worker without the lease takes none
 *    (it waits for the lease, a standby); the holder renews the lease while it works and keeps it
 *    until it stops (or loses it: then it pauses, its running jobs stop fenced, and it waits again);
 * 2. the holder drives up to `concurrency` jobs at once: build, inspect, sign and confirm of
 *    different intents overlap, while the first send of each job waits its turn, in the order the
 *    jobs were taken (the queue's order, the engine's decision order): one in-order send pipeline;
 * 3. each job admits its intent if the journal does not know it yet (executors/journal-admission.ts,
 *    the very function the in-process live executor calls; a refusal is journaled DENIED, reported
 *    once) and drives it from whatever state the journal holds: a re-delivered job reconciles,
 *    re-broadcasts the same bytes while they can land, and builds a new transaction only after
 *    expiry and a history-searching miss;
 * 4. the outcome goes to the wallet's report stream in the same script that marks it reported.
 *
 * Every journal write carries the lease epoch; every send first checks the lease on Redis. A worker
 * whose lease was taken over gets JOURNAL_FENCED, stops its jobs and leaves them to the new holder.
 */
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ChainpilotError, describeError, isChainpilotError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import { createLifecycle, lifecycleMembers, type Lifecycle } from '../../core/lifecycle.js';
import type { Logger } from '../../core/logger.js';
import type { ExecutionReport, OrderIntent } from '../../engine/orders/execution-port.js';
import { decodeIntent } from '../journal/codec.js';
import type { IntentJournal } from '../journal/journal.js';
import { openRedisJournal, type RedisJournal } from '../journal/redis-journal.js';
import { driveIntent, type DriveContext, type LiveProbePoint } from '../live/drive-intent.js';
import { BASE_ALLOWED_PROGRAMS } from '../live/inspect.js';
import { createPriorityFeeSource } from '../live/priority-fee.js';
import { admitIntoJournal } from '../journal-admission.js';
import { resolveLiveSettings, type LiveSettings, type LiveSettingsInput } from '../live/live-settings.js';
import type { LiveRpcPort, SwapBuilderPort } from '../live/ports.js';
import { createStatusBatcher } from '../live/status-batcher.js';
import type { Signer } from '../signer/signer.js';
import { DEFAULT_WALLET_CONCURRENCY, walletQueueName, type IntentJobData } from './queue-names.js';
import { encodeReport } from './report-codec.js';
import { acquireWalletLease, type WalletLease } from './wallet-lease.js';

export interface WalletWorkerOptions {
  /** Command connection (`maxRetriesPerRequest: null`); BullMQ duplicates it for blocking reads. */
  readonly redis: Redis;
  readonly prefix: string;
  readonly signer: Signer;
  readonly rpc: LiveRpcPort;
  readonly swap: SwapBuilderPort;
  readonly clock: Clock;
  readonly settings: LiveSettingsInput;
  readonly log: Logger;
  /** Worker id (host, pid) for logs and lease ownership. */
  readonly holder: string;
  /** Lease time-to-live (default 10 s): how long a crashed holder blocks its wallet at most. */
  readonly leaseTtlMs?: number;
  /** Jobs of the wallet driven at once while this worker holds the lease (default 32; `execution.queue.concurrency`). */
  readonly concurrency?: number;
  /** BullMQ job lock (default 30 s) and stalled-job check interval (default 15 s). */
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  /** Test hook: named instants of a job (crash tests kill the process there). */
  readonly probe?: (point: LiveProbePoint | 'leased', intentId: string) => void;
}

/** Counters of one wallet worker. */
export interface WalletWorkerStats {
  readonly wallet: string;
  readonly jobsCompleted: number;
  readonly jobsFailed: number;
  /** Job runs stopped because another worker took the lease over. */
  readonly fenced: number;
  /** Leases this worker took from a holder that never released them. */
  readonly takeovers: number;
  /** True while this worker holds the wallet's lease (and so takes its jobs). */
  readonly holding: boolean;
  /** Jobs running now. */
  readonly active: number;
  readonly running: boolean;
}

/** Default deadline of a wallet worker's stop: BullMQ's default job lock (ms). */
export const WALLET_WORKER_DRAIN_MS = 30_000;

/**
 * A {@link Lifecycle} built running. `stop({ drainMs })` stops taking jobs and waits at most
 * `drainMs` (default {@link WALLET_WORKER_DRAIN_MS}, on the worker's clock) for the running one;
 * past it, or with `drainMs: 0`, the running job is aborted and left to its lock: it lapses and
 * another worker resumes the intent through the journal. The report is the final counters.
 */
export interface WalletWorker extends Lifecycle<WalletWorkerStats> {
  readonly wallet: string;
  stats(): WalletWorkerStats;
}

/** Starts a worker on `signer`'s wallet queue. */
export function startWalletWorker(o: WalletWorkerOptions): WalletWorker {
  const wallet = o.signer.address;
  const settings: LiveSettings = resolveLiveSettings(o.settings);
  const allowedPrograms = new Set([...BASE_ALLOWED_PROGRAMS, ...settings.allowedPrograms]);
  const log = o.log.child({ wallet });
  const priorityFees = createPriorityFeeSource(settings.priorityFee, o.rpc, o.clock, log);
  const closing = new AbortController();
  /** Aborted when the worker stops: ends the lease loop (running jobs go on unless `closing`). */
  const stopping = new AbortController();
  let forced = false;
  const counters = { completed: 0, failed: 0, fenced: 0, takeovers: 0, active: 0 };
  /** Shared by every job: status polls of concurrent intents go out in one batch. */
  const statuses = createStatusBatcher(o.rpc);
  let held: WalletLease | undefined;

  /** One job under `lease`; `turn` is its place in the send order. */
  const runJob = async (job: Job<IntentJobData>, lease: WalletLease, turn: SendTurn): Promise<void> => {
    let intent: OrderIntent;
    try {
      intent = decodeJob(job);
    } catch (e) {
      log.error({ jobId: job.id, code: 'QUEUE_BAD_JOB', err: describeError(e) }, 'job is not an intent; failed without retries');
      throw new UnrecoverableError(describeError(e)); // no run can succeed: fail the job at once
    }
    if (aborted(lease.signal)) {
      // Taken between losing the lease and closing this tenure's worker: not run here; BullMQ retries it at the holder.
      counters.fenced++;
      log.warn({ intentId: intent.id, code: 'JOURNAL_FENCED' }, 'job taken after the wallet lease was lost; left to the holder');
      throw lease.signal.reason;
    }
    o.probe?.('leased', intent.id);
    try {
      const journal = openRedisJournal({ redis: o.redis, prefix: o.prefix, wallet, epoch: lease.epoch });
      const staged = new Map<string, ExecutionReport>();
      const ctx: DriveContext = {
        rpc: orderedFencedRpc(o.rpc, lease, turn),
        statuses,
        swap: o.swap,
        signer: o.signer,
        journal: reportingJournal(journal, staged),
        clock: o.clock,
        settings,
        allowedPrograms,
        priorityFees,
        log,
        report: (r) => void staged.set(r.intentId, r),
        ...(o.probe ? { probe: o.probe } : {}),
        signal: AbortSignal.any([lease.signal, closing.signal]),
        // the worker's journal is not guarded (a Redis error fails the job, which BullMQ retries), so nothing is handed over early
        handedOver: new Map(),
      };
      if (!(await journal.get(intent.id))) {
        const admitted = await admitIntoJournal(journal, intent, settings, o.clock.now());
        if (admitted.kind === 'denied') {
          const { code, reason, context } = admitted.denial;
          log.warn({ intentId: intent.id, code, reason, context }, 'intent refused by admission; nothing was built');
          if (!admitted.journaled) throw new UnrecoverableError(`${code}: ${reason} (not journaled: ${admitted.journalError ?? 'no row'})`);
        }
      }
      await driveIntent(ctx, intent.id);
      if (aborted(lease.signal)) throw lease.signal.reason;
    } catch (e) {
      const fenced = isChainpilotError(e, 'JOURNAL_FENCED') || (aborted(lease.signal) && !aborted(closing.signal));
      if (fenced) {
        counters.fenced++;
        log.error(
          { intentId: intent.id, code: 'JOURNAL_FENCED', epoch: lease.epoch },
          'lease taken over: this worker stops driving the intent; the new holder resumes it',
        );
        throw isChainpilotError(e, 'JOURNAL_FENCED') ? e : lease.signal.reason;
      }
      throw e;
    }
  };

  /**
   * The BullMQ worker of one lease tenure: created when this worker takes the lease, closed when it
   * loses it or stops (a fresh one per tenure: no pause/resume state carried across). Its jobs share
   * the tenure's lease and send order.
   */
  const tenureWorker = (lease: WalletLease): Worker<IntentJobData> => {
    const nextTurn = createSendOrder();
    const processJob = async (job: Job<IntentJobData>): Promise<void> => {
      // Taken first, in the order BullMQ hands the jobs out (the queue's order): the job's first send waits for it.
      const turn = nextTurn();
      counters.active++;
      try {
        await runJob(job, lease, turn);
      } finally {
        turn.pass();
        counters.active--;
      }
    };
    const worker = new Worker<IntentJobData>(walletQueueName(wallet), processJob, {
      connection: o.redis,
      prefix: o.prefix,
      concurrency: o.concurrency ?? DEFAULT_WALLET_CONCURRENCY,
      autorun: false, // run by holdLease once the lease is held
      lockDuration: o.lockDurationMs ?? 30_000,
      stalledInterval: o.stalledIntervalMs ?? 15_000,
      maxStalledCount: Number.MAX_SAFE_INTEGER, // a stalled job is resumed through the journal, never given up
    });
    worker.on('completed', () => {
      counters.completed++;
    });
    worker.on('failed', (job, e) => {
      counters.failed++;
      log.warn({ intentId: job?.id, err: describeError(e) }, 'job run failed; BullMQ retries it and the journal resumes the intent');
    });
    worker.on('error', (e) => log.warn({ err: describeError(e) }, 'worker error'));
    return worker;
  };

  /** Takes the lease (waiting while another worker holds it), works the queue while it lasts, and again after losing it. */
  const holdLease = async (): Promise<void> => {
    while (!aborted(stopping.signal)) {
      let lease: WalletLease;
      try {
        lease = await acquireWalletLease({
          redis: o.redis,
          prefix: o.prefix,
          wallet,
          ttlMs: o.leaseTtlMs ?? 10_000,
          holder: o.holder,
          log,
          signal: stopping.signal,
        });
      } catch (e) {
        if (aborted(stopping.signal)) return;
        log.warn({ err: describeError(e) }, 'taking the wallet lease failed; retrying');
        await sleep(250);
        continue;
      }
      if (lease.tookOver) counters.takeovers++;
      held = lease;
      log.info({ epoch: lease.epoch }, 'holding the wallet lease: taking its jobs');
      const worker = tenureWorker(lease);
      const ran = worker.run().then(
        () => 'ended' as const,
        (e: unknown) => {
          log.error({ err: describeError(e) }, 'the wallet worker stopped on an error');
          return 'ended' as const;
        },
      );
      const why = await Promise.race([ran, whenAborted(lease.signal, 'lost' as const), whenAborted(stopping.signal, 'stop' as const)]);
      if (why === 'lost') log.error({ epoch: lease.epoch, code: 'JOURNAL_FENCED' }, 'lost the wallet lease: stops taking its jobs until it holds it again');
      else if (why === 'ended') log.error({ epoch: lease.epoch }, 'the wallet worker ended by itself: releasing the lease and taking it again');
      // Lost: the running jobs stop fenced on their own (their signal is the lease's); wait for them so BullMQ retries them at once.
      await worker.close(why === 'stop' && forced).catch((e: unknown) => log.warn({ err: describeError(e) }, 'closing the wallet worker failed'));
      held = undefined;
      // Graceful stop: every job ended, the next holder takes over at once. Forced: jobs may still unwind, but their sends are fenced once the lease is gone.
      await lease.release().catch((e: unknown) => log.warn({ err: describeError(e) }, 'lease release failed; it expires on its own'));
      if (why === 'ended') await sleep(250); // no hot loop while Redis keeps failing the worker
    }
  };
  const holding = holdLease();

  const stats = (): WalletWorkerStats => ({
    wallet,
    jobsCompleted: counters.completed,
    jobsFailed: counters.failed,
    fenced: counters.fenced,
    takeovers: counters.takeovers,
    holding: held !== undefined && !held.signal.aborted,
    active: counters.active,
    running: counters.active > 0,
  });
  let drained = false;
  let loopEnded = false;
  void holding.then(() => (loopEnded = true));
  const life = createLifecycle(
    {
      name: `wallet worker ${wallet}`,
      drain: async () => {
        // no new job; the running ones finish, then the lease is released for the next holder
        stopping.abort();
        await holding;
        drained = true;
      },
      halt: async () => {
        if (!drained) {
          forced = true;
          closing.abort(new ChainpilotError('LIVE_NOT_STARTED', 'the worker is stopping', { retry: 'retryable' }));
        }
        stopping.abort();
        await holding;
      },
      report: stats,
      notReady: () => (loopEnded ? [`wallet worker ${wallet}: not taking jobs`] : []),
    },
    { log: log, clock: o.clock, defaultDrainMs: WALLET_WORKER_DRAIN_MS, running: true },
  );

  return { ...lifecycleMembers(life), wallet, stats };
}

function decodeJob(job: Job<IntentJobData>): OrderIntent {
  let intent: OrderIntent;
  try {
    intent = decodeIntent(job.data.intent);
  } catch (e) {
    throw new ChainpilotError('QUEUE_BAD_JOB', `job ${job.id ?? '?'} does not carry a valid intent: ${describeError(e)}`, { retry: 'not_retryable', cause: e });
  }
  if (intent.id !== job.id) {
    throw new ChainpilotError('QUEUE_BAD_JOB', `job ${job.id ?? '?'} carries intent ${intent.id}; the job id must be the intent id`, {
      retry: 'not_retryable',
    });
  }
  return intent;
}

/** The journal as drive-intent sees it: markReported publishes the staged report in the same script. */
function reportingJournal(journal: RedisJournal, staged: Map<string, ExecutionReport>): IntentJournal {
  return {
    ...journal,
    async markReported(id, at) {
      const r = staged.get(id);
      if (r === undefined) return journal.markReported(id, at);
      await journal.markReportedWith(id, at, encodeReport(r));
      staged.delete(id);
    },
  };
}

/** A job's place in the wallet's send order: `turn` settles once every earlier job sent first or ended. */
interface SendTurn {
  readonly turn: Promise<void>;
  /** This job sent its first transaction, or ended without one: the next job may send. */
  pass(): void;
}

/** The in-order send pipeline of one lease holder: each call hands out the next turn. */
export function createSendOrder(): () => SendTurn {
  let last: Promise<void> = Promise.resolve();
  return () => {
    const turn = last;
    let pass: () => void = () => undefined;
    const passed = new Promise<void>((r) => (pass = r));
    // The next job waits for this one AND every earlier one (an earlier job may still be before its send).
    last = turn.then(() => passed);
    return { turn, pass };
  };
}

/**
 * The RPC port of one job: each send waits for the job's turn (its first send only: later turns are
 * already open), then checks the lease on Redis (a fenced worker cannot send), then sends; the
 * turn passes once the RPC answered, so sends reach the RPC in the jobs' order.
 */
function orderedFencedRpc(rpc: LiveRpcPort, lease: WalletLease, turn: SendTurn): LiveRpcPort {
  return {
    sendTransaction: async (tx, opts) => {
      await turn.turn;
      try {
        await lease.assertHeld();
        return await rpc.sendTransaction(tx, opts);
      } finally {
        turn.pass();
      }
    },
    getSignatureStatuses: (s, opts) => rpc.getSignatureStatuses(s, opts),
    getBlockHeight: (opts) => rpc.getBlockHeight(opts),
    ...(rpc.getSlot ? { getSlot: rpc.getSlot.bind(rpc) } : {}),
    simulateTransaction: (tx, opts) => rpc.simulateTransaction(tx, opts),
    getTransaction: (s, opts) => rpc.getTransaction(s, opts),
    getMultipleAccounts: (a, opts) => rpc.getMultipleAccounts(a, opts),
  };
}

/** Resolves to `value` once `signal` aborts (at once when it already has). */
function whenAborted<T>(signal: AbortSignal, value: T): Promise<T> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(value);
    else signal.addEventListener('abort', () => resolve(value), { once: true });
  });
}

/** Read through a call: TypeScript would narrow `signal.aborted` across awaits. */
function aborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
