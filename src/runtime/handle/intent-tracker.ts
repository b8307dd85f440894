/**
 * The executor as the handle sees it: a thin wrapper around the mode's executor that keeps the
 * intents in flight (for status, the drain and the shutdown report), records each one's outcome,
 * and guards the engine's report sink: an invariant breach thrown while a report is applied (an
 * oversold position, a bad journal transition) becomes a fatal error of the deployment instead of
 * an exception in an executor's loop or a clock timer.
 */
import { ChainpilotError, describeError, isChainpilotError, type Clock, type Logger, type UnixMs } from '../../core/index.js';
import type { ExecutionReport, ExecutionSink, Executor, OrderIntent } from '../../engine/orders/execution-port.js';
import type { PendingIntentView, ShutdownIntentReport } from './deployment-handle.js';

/** Error codes that mean an invariant broke: the deployment halts (runtime issue item 6). */
export const FATAL_CODES: ReadonlySet<string> = new Set(['JOURNAL_CORRUPT', 'JOURNAL_BAD_TRANSITION', 'ENGINE_POSITION_OVERSOLD', 'RUNTIME_INVARIANT_BROKEN']);

/** True when `e` is one of the fatal invariant breaches. */
export function isFatal(e: unknown): e is ChainpilotError {
  return isChainpilotError(e) && (FATAL_CODES.has(e.code) || e.retry === 'fatal');
}

export interface TrackedExecutor extends Executor {
  /** Intents handed over and not yet resolved, oldest first. */
  pending(): PendingIntentView[];
  /** Intents submitted since `markDrain()` (or all) with their outcome so far. */
  outcomes(): ShutdownIntentReport[];
  /** Starts the shutdown report: intents in flight now are the ones it lists. */
  markDrain(): void;
  /** Resolves when nothing is in flight, or rejects with CORE_ABORTED when `signal` aborts. */
  whenIdle(signal: AbortSignal): Promise<void>;
}

export interface IntentTrackerOptions {
  readonly inner: Executor;
  readonly clock: Clock;
  readonly log: Logger;
  /** Called with a fatal invariant breach (the handle halts). */
  readonly onFatal: (error: ChainpilotError) => void;
  /** Called when an intent is handed over. */
  readonly onSubmit?: (intent: OrderIntent) => void;
  /** Called for each report after the engine applied it. */
  readonly onReport?: (report: ExecutionReport, intent: OrderIntent | undefined) => void;
}

interface Tracked {
  readonly intent: OrderIntent;
  state: string;
  outcome: ShutdownIntentReport['outcome'] | undefined;
  signature: string | undefined;
  readonly at: UnixMs;
}

/** Wraps `inner`; see the module comment. */
export function createIntentTracker(o: IntentTrackerOptions): TrackedExecutor {
  const inFlight = new Map<string, Tracked>();
  let draining: Map<string, Tracked> | undefined;
  const idleWaiters = new Set<() => void>();

  const settle = (id: string, outcome: ShutdownIntentReport['outcome'], signature?: string): void => {
    const t = inFlight.get(id) ?? draining?.get(id);
    if (!t) return;
    t.outcome = outcome;
    t.state = outcome.toUpperCase();
    if (signature !== undefined) t.signature = signature;
    inFlight.delete(id);
    if (inFlight.size === 0) {
      for (const w of idleWaiters) w();
      idleWaiters.clear();
    }
  };

  const guard =
    (sink: ExecutionSink): ExecutionSink =>
    (r) => {
      const t = inFlight.get(r.intentId);
      if (r.type === 'accepted') {
        if (t) t.state = 'ACCEPTED';
      }
      try {
        sink(r);
      } catch (e) {
        // Reports are facts (a landed swap happened): failing to apply one is an invariant breach.
        const err = isFatal(e)
          ? e
          : new ChainpilotError('RUNTIME_INVARIANT_BROKEN', `applying the ${r.type} report of intent ${r.intentId} failed: ${describeError(e)}`, {
              retry: 'not_retryable',
              cause: e,
            });
        o.log.error({ intentId: r.intentId, code: err.code, err: err.message }, 'applying an execution report failed');
        o.onFatal(err);
      }
      if (r.type === 'filled') settle(r.intentId, 'landed', r.fill.signature);
      else if (r.type === 'rejected') settle(r.intentId, 'rejected');
      else if (r.type === 'failed') settle(r.intentId, 'failed');
      else if (r.type === 'expired') settle(r.intentId, 'expired');
      o.onReport?.(r, t?.intent);
    };

  const inner = o.inner;
  return {
    start: (sink) => inner.start(guard(sink)),
    ...(inner.cancel ? { cancel: (intentId: string, reason: string) => inner.cancel?.(intentId, reason) ?? false } : {}),
    ...(inner.holdManual ? { holdManual: (intentId: string) => inner.holdManual?.(intentId) } : {}),
    async submit(intent) {
      const t: Tracked = { intent, state: 'PENDING', outcome: undefined, signature: undefined, at: o.clock.now() };
      inFlight.set(intent.id, t);
      draining?.set(intent.id, t);
      o.onSubmit?.(intent);
      try {
        await o.inner.submit(intent);
      } catch (e) {
        // An unknown outcome (the executor may hold it) stays in flight until a report settles it.
        // Otherwise the engine turns the refusal into a `rejected` report; the tracker forgets it,
        // and an invariant breach (the journal could not take the intent) halts the deployment.
        if (isChainpilotError(e) && e.retry === 'unknown_outcome') {
          t.state = 'UNKNOWN';
          throw e;
        }
        settle(intent.id, 'rejected');
        if (isFatal(e)) o.onFatal(e);
        throw e;
      }
    },
    stop: (signal) => o.inner.stop(signal),
    pending: () => [...inFlight.values()].map((t) => ({ intent: t.intent, state: t.state })),
    outcomes: () =>
      [...(draining ?? inFlight).values()].map((t) => ({
        intentId: t.intent.id,
        mint: t.intent.mint,
        side: t.intent.side,
        outcome: t.outcome ?? 'unresolved',
        state: t.state,
        ...(t.signature !== undefined ? { signature: t.signature } : {}),
      })),
    markDrain() {
      draining ??= new Map(inFlight);
    },
    whenIdle(signal) {
      if (inFlight.size === 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const done = (): void => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = (): void => {
          idleWaiters.delete(done);
          reject(new ChainpilotError('CORE_ABORTED', 'the drain deadline passed', { retry: 'not_retryable' }));
        };
        if (signal.aborted) {
          onAbort();
          return;
        }
        idleWaiters.add(done);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
