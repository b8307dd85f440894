/**
 * The live executor: swap → inspect → sign → journal → send → confirm, with one decision never
 * landing twice, even across crashes (design.md §5). Spend caps are enforced here, independent of
 * strategy code and of the risk gate.
 */
import { setMaxListeners } from 'node:events';
import { ChainpilotError, describeError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { amountInOf, type ExecutionReport, type ExecutionSink, type Executor, type OrderIntent } from '../../engine/orders/execution-port.js';
import { createRepeatLimiter } from '../../engine/logs/repeat-limiter.js';
import type { IntentJournal, IntentRecord } from '../journal/journal.js';
import type { Signer } from '../signer/signer.js';
import { driveIntent, type DriveContext, type LiveProbePoint, type LiveRetryKind } from './drive-intent.js';
import { BASE_ALLOWED_PROGRAMS } from './inspect.js';
import { admitIntoJournal } from '../journal-admission.js';
import { resolveLiveSettings, type LiveSettings, type LiveSettingsInput } from './live-settings.js';
import type { LiveRpcPort, SwapBuilderPort } from './ports.js';
import { createPriorityFeeSource } from './priority-fee.js';
import { createStatusBatcher } from './status-batcher.js';
import { createJournalOutage, isJournalUnavailable, type JournalHealth } from './journal-outage.js';
import { cappedBackoff, throwIfAborted } from '../../core/abort.js';
import { clockSleep } from '../../core/clock.js';
import { JOURNAL_BACKOFF_CAP_MS } from './drive-intent.js';

export type { JournalHealth } from './journal-outage.js';

export interface LiveExecutorOptions {
  readonly rpc: LiveRpcPort;
  readonly swap: SwapBuilderPort;
  readonly signer: Signer;
  readonly journal: IntentJournal;
  readonly clock: Clock;
  readonly settings: LiveSettingsInput;
  readonly logger?: Logger;
  /** Background failures (abort aside) that leave an intent for start-up reconciliation. */
  readonly onError?: (error: unknown, intentId: string) => void;
  /** Test hook: called at named instants (crash tests kill the process there). */
  readonly probe?: (point: LiveProbePoint, intentId: string) => void;
  /**
   * Called when the journal stops accepting writes (the deployment is degraded: intents already
   * sent are kept in memory and retried, new ones refused) and when it accepted every waiting write.
   */
  readonly onJournalHealth?: (health: JournalHealth) => void;
  /**
   * Told when a piece of the executor's work begins (a submit, an intent driven) and ends: the
   * embedded simulator's lockstep holds its clock while more pieces run than wait on `clock`
   * (src/runtime/embedded/client-work.ts). Absent: nobody is told.
   */
  readonly work?: { begin(): () => void };
}

/** What `counters()` counts: chain reads and sends retried, journal calls failed, intents refused for them. */
export type LiveCounterKind = LiveRetryKind | 'journal-error' | 'journal-refusal';

export interface LiveExecutor extends Executor {
  readonly settings: LiveSettings;
  /** Chain reads and sends that failed and were retried or treated as unknown, journal calls that failed, by kind. */
  counters(): Readonly<Record<LiveCounterKind, number>>;
  /** Whether the journal accepts writes (degraded while it does not; see docs/executor.md). */
  journalHealth(): JournalHealth;
  /** Resolves when every intent currently in flight has settled (tests, benchmarks). */
  idle(): Promise<void>;
}

/** Creates the live executor. Nothing is sent before `start()` finished reconciling the journal. */
export function createLiveExecutor(options: LiveExecutorOptions): LiveExecutor {
  const settings = resolveLiveSettings(options.settings);
  const log = options.logger ?? silentLogger();
  const abort = new AbortController();
  // Every in-flight intent waits on this one stop signal (one listener per wait, removed when the
  // wait ends), so the listener count follows concurrency; Node's default warning at 10 is noise here.
  setMaxListeners(10_000, abort.signal);
  const inflight = new Map<string, Promise<void>>();
  let sink: ExecutionSink | undefined;
  let phase: 'idle' | 'starting' | 'running' | 'stopped' = 'idle';
  const counters: Record<LiveCounterKind, number> = {
    'read-retry': 0,
    'send-error': 0,
    'status-error': 0,
    'height-error': 0,
    'stale-status': 0,
    'journal-error': 0,
    'journal-refusal': 0,
  };
  const count = (what: LiveCounterKind): void => {
    counters[what]++;
  };
  const outage = createJournalOutage({
    journal: options.journal,
    clock: options.clock,
    log,
    count,
    ...(options.onJournalHealth ? { onChange: options.onJournalHealth } : {}),
  });
  const journal = outage.journal;

  const ctx: DriveContext = {
    rpc: options.rpc,
    statuses: createStatusBatcher(options.rpc, () => count('status-error')),
    count,
    swap: options.swap,
    signer: options.signer,
    journal,
    clock: options.clock,
    settings,
    allowedPrograms: new Set([...BASE_ALLOWED_PROGRAMS, ...settings.allowedPrograms]),
    priorityFees: createPriorityFeeSource(settings.priorityFee, options.rpc, options.clock, log),
    log,
    report: (r: ExecutionReport) => sink?.(r),
    ...(options.probe ? { probe: options.probe } : {}),
    signal: abort.signal,
    handedOver: new Map(),
  };

  const track = (id: string, work: (id: string) => Promise<void>): Promise<void> => {
    const running = inflight.get(id);
    if (running) return running;
    const end = options.work?.begin();
    const p = work(id)
      .catch((e: unknown) => {
        if (abort.signal.aborted) return;
        log.error({ intentId: id, err: describeError(e) }, 'intent left unresolved; start-up reconciliation will resume it');
        options.onError?.(e, id);
      })
      .finally(() => {
        inflight.delete(id);
        end?.();
      });
    inflight.set(id, p);
    return p;
  };
  /** Drives intent `id`; `created` is its record as the create just wrote it (no read needed). */
  const drive = (id: string, created?: IntentRecord): Promise<void> => track(id, (i) => driveIntent(ctx, i, created));

  /**
   * An intent refused because the journal could not write it was reported `rejected`; a row the
   * failed write may still have left (a NEW row whose denial failed, or a create whose reply was
   * lost) is denied and marked reported once the journal writes again, so no restart acts on it.
   */
  const settleRefusal = async (intent: OrderIntent, reason: string): Promise<void> => {
    const id = intent.id;
    for (let failures = 0; ; failures++) {
      throwIfAborted(abort.signal, `refused intent ${id}`);
      try {
        const rec = await journal.get(id);
        // only this decision's own row (an id another run journaled is not ours to deny)
        if (rec === undefined || !sameIntent(rec.intent, intent)) return;
        if (rec.state === 'NEW') await journal.deny(id, 'LIVE_JOURNAL_UNAVAILABLE', reason, options.clock.now());
        if ((rec.state === 'NEW' || rec.state === 'DENIED') && !rec.reported) await journal.markReported(id, options.clock.now());
        return;
      } catch (e) {
        if (!isJournalUnavailable(e)) throw e;
        await clockSleep(options.clock, cappedBackoff(failures, settings.pollMs, JOURNAL_BACKOFF_CAP_MS), abort.signal);
      }
    }
  };

  // Identical refusals are summarised in the log, one line per code per minute of the run clock with
  // the count held back (every one is still reported to the sink, counted and journaled).
  const repeats = createRepeatLimiter(options.clock);
  const reject = (intent: OrderIntent, code: ChainpilotError['code'], reason: string, logIt = true): void => {
    const r = logIt ? repeats.admit(`rejected\u0000${code}`) : { write: false, held: 0 };
    if (r.write) log.warn({ intentId: intent.id, code, reason, ...(r.held > 0 ? { repeated: r.held } : {}) }, 'intent rejected before anything was built');
    sink?.({ type: 'rejected', intentId: intent.id, at: options.clock.now(), code, reason });
  };

  const submitOne = async (intent: OrderIntent): Promise<void> => {
    if (phase !== 'running') {
      throw new ChainpilotError('LIVE_NOT_STARTED', `submit(${intent.id}) while the executor is ${phase}; await start() first`, {
        retry: 'not_retryable',
        context: { intentId: intent.id, phase },
      });
    }
    const now = options.clock.now();
    let admitted: Awaited<ReturnType<typeof admitIntoJournal>>;
    try {
      admitted = await admitIntoJournal(journal, intent, settings, now);
    } catch (e) {
      if (!isJournalUnavailable(e)) throw e;
      // The same intent again while it is driven (a re-delivery): it is in flight, not refused.
      if (inflight.has(intent.id)) return;
      // Refused, loudly (logged at error, counted, the outage notified): nothing was built.
      const reason = outage.refused(intent.id, e);
      sink?.({ type: 'rejected', intentId: intent.id, at: now, code: 'LIVE_JOURNAL_UNAVAILABLE', reason });
      void track(intent.id, () => settleRefusal(intent, reason));
      return;
    }
    if (admitted.kind === 'denied') {
      const { code, reason, context } = admitted.denial;
      const r = repeats.admit(`refused\u0000${code}`);
      if (r.write)
        log.warn({ intentId: intent.id, code, reason, context, ...(r.held > 0 ? { repeated: r.held } : {}) }, 'intent refused by admission; nothing was built');
      if (admitted.journaled)
        await drive(intent.id); // reports the DENIED row once and marks it reported
      else {
        if (admitted.journalError !== undefined) log.warn({ intentId: intent.id, err: admitted.journalError }, 'refused intent could not be journaled');
        reject(intent, code, reason, false);
      }
      return;
    }
    if (admitted.kind === 'exists') {
      // The same intent again (a queue re-delivery): idempotent, the journal drives or drove it.
      if (inflight.has(intent.id) || sameIntent(admitted.record.intent, intent)) return;
      // Another intent under an id another run or process journaled: report it, never leave it pending.
      reject(
        intent,
        'LIVE_INTENT_ID_REPEATED',
        `intent id ${intent.id} is already in the journal (${admitted.record.state}, created by another run or process); nothing was built`,
      );
      return;
    }
    options.probe?.('created', intent.id);
    sink?.({ type: 'accepted', intentId: intent.id, at: now });
    void drive(intent.id, admitted.record);
  };

  return {
    settings,
    counters: () => ({ ...counters }),
    journalHealth: () => outage.health(),
    async start(s) {
      if (phase !== 'idle') throw new ChainpilotError('LIVE_NOT_STARTED', `start() called twice (executor is ${phase})`, { retry: 'not_retryable' });
      sink = s;
      phase = 'starting';
      const open = await journal.unresolved();
      log.info({ unresolved: open.length }, 'reconciling the journal before accepting intents');
      await Promise.all(open.map((r) => drive(r.intent.id)));
      phase = 'running';
    },

    async submit(intent) {
      const end = options.work?.begin();
      try {
        await submitOne(intent);
      } finally {
        end?.();
      }
    },

    async stop(signal) {
      phase = 'stopped';
      const onAbort = (): void => abort.abort(signal?.reason);
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await Promise.allSettled([...inflight.values()]);
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },

    async idle() {
      while (inflight.size > 0) await Promise.allSettled([...inflight.values()]);
    },
  };
}

/** True when `a` and `b` are the same decision (every field equal), not just the same id. */
function sameIntent(a: OrderIntent, b: OrderIntent): boolean {
  return (
    a.id === b.id &&
    a.strategyId === b.strategyId &&
    a.side === b.side &&
    a.mint === b.mint &&
    a.decimals === b.decimals &&
    amountInOf(a) === amountInOf(b) &&
    a.slippageBps === b.slippageBps &&
    a.priorityFeeLamports === b.priorityFeeLamports &&
    a.referencePrice === b.referencePrice &&
    a.createdAt === b.createdAt &&
    a.reason === b.reason
  );
}

export { spendOf, utcDay, validateIntent } from '../admission.js';
