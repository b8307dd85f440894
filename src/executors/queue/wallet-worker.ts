/**
 * The worker side of scale-out: a BullMQ worker on one wallet's queue that runs each job (one
 * intent) through the live executor's rules (drive-intent.ts) against the Redis journal:
 *
 * 1. take the wallet's lease (a new epoch; a crashed holder's lease is taken over once expired);
 * 2. admit the intent if the journal does not know it yet (executors/journal-admission.ts, the very
 *    function the in-process live executor calls; a refusal is journaled DENIED, reported once);
 * 3. drive it from whatever state the journal holds: a re-delivered job reconciles, re-broadcasts
 *    the same bytes while they can land, and builds a new transaction only after expiry and a
 *    history-searching miss;
 * 4. hand the outcome to the wallet's report stream in the same script that marks it reported.
 *
 * Every journal write carries the lease epoch; every send first checks the lease on Redis. A worker
 * whose lease was taken over gets JOURNAL_FENCED, stops the job and leaves it to the new holder.
 */
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ChainpilotError, describeError, isChainpilotError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import { createLifecycle, lifecycleMembers, type Lifecycle } from '../../core/lifecycle.js';
import type { Logger } from '../../core/logger.js';
import type { ExecutionReport, OrderIntent } from '../../engine/execution-port.js';
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
import { walletQueueName, type IntentJobData } from './queue-names.js';
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
  const counters = { completed: 0, failed: 0, fenced: 0, takeovers: 0, running: false };

  const processJob = async (job: Job<IntentJobData>): Promise<void> => {
    let intent: OrderIntent;
    try {
      intent = decodeJob(job);
    } catch (e) {
      log.error({ jobId: job.id, code: 'QUEUE_BAD_JOB', err: describeError(e) }, 'job is not an intent; failed without retries');
      throw new UnrecoverableError(describeError(e)); // no run can succeed: fail the job at once
    }
    const lease = await acquireWalletLease({
      redis: o.redis,
      prefix: o.prefix,
      wallet,
      ttlMs: o.leaseTtlMs ?? 10_000,
      holder: o.holder,
      log,
      signal: closing.signal,
    });
    if (lease.tookOver) counters.takeovers++;
    counters.running = true;
    o.probe?.('leased', intent.id);
    try {
      const journal = openRedisJournal({ redis: o.redis, prefix: o.prefix, wallet, epoch: lease.epoch });
      const staged = new Map<string, ExecutionReport>();
      const ctx: DriveContext = {
        rpc: fencedRpc(o.rpc, lease),
        statuses: createStatusBatcher(o.rpc),
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
      if (lease.signal.aborted) throw lease.signal.reason;
    } catch (e) {
      const fenced = isChainpilotError(e, 'JOURNAL_FENCED') || (lease.signal.aborted && !closing.signal.aborted);
      if (fenced) {
        counters.fenced++;
        log.error(
          { intentId: intent.id, code: 'JOURNAL_FENCED', epoch: lease.epoch },
          'lease taken over: this worker stops driving the intent; the new holder resumes it',
        );
        throw isChainpilotError(e, 'JOURNAL_FENCED') ? e : lease.signal.reason;
      }
      throw e;
    } finally {
      counters.running = false;
      await lease.release().catch((e: unknown) => log.warn({ err: describeError(e) }, 'lease release failed; it expires on its own'));
    }
  };

  const worker = new Worker<IntentJobData>(walletQueueName(wallet), processJob, {
    connection: o.redis,
    prefix: o.prefix,
    concurrency: 1,
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

  const stats = (): WalletWorkerStats => ({
    wallet,
    jobsCompleted: counters.completed,
    jobsFailed: counters.failed,
    fenced: counters.fenced,
    takeovers: counters.takeovers,
    running: counters.running,
  });
  let drained = false;
  const life = createLifecycle(
    {
      name: `wallet worker ${wallet}`,
      drain: async () => {
        // no new job; the running one finishes
        await worker.pause(false);
        drained = true;
      },
      halt: async () => {
        if (!drained) closing.abort(new ChainpilotError('LIVE_NOT_STARTED', 'the worker is stopping', { retry: 'retryable' }));
        await worker.close(!drained);
      },
      report: stats,
      notReady: () => (worker.isRunning() ? [] : [`wallet worker ${wallet}: not taking jobs`]),
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

/** The RPC port with every send preceded by a lease check: a fenced worker cannot send. */
function fencedRpc(rpc: LiveRpcPort, lease: WalletLease): LiveRpcPort {
  return {
    sendTransaction: async (tx, opts) => {
      await lease.assertHeld();
      return rpc.sendTransaction(tx, opts);
    },
    getSignatureStatuses: (s, opts) => rpc.getSignatureStatuses(s, opts),
    getBlockHeight: (opts) => rpc.getBlockHeight(opts),
    ...(rpc.getSlot ? { getSlot: rpc.getSlot.bind(rpc) } : {}),
    simulateTransaction: (tx, opts) => rpc.simulateTransaction(tx, opts),
    getTransaction: (s, opts) => rpc.getTransaction(s, opts),
    getMultipleAccounts: (a, opts) => rpc.getMultipleAccounts(a, opts),
  };
}
