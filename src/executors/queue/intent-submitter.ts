/**
 * Putting intents on a wallet's queue: one BullMQ job per intent, job id = intent id, so adding it
 * again is idempotent. A submit waits a bounded time for Redis to store the job; when Redis does not
 * answer (or fails) the outcome is unknown: the intent stays in flight, the job is added again in
 * the background until Redis answers, and the worker's report settles the intent either way.
 * State: none of its own (the engine counts unknown submits: `stats.submitsUnknown`).
 */
import type { Queue } from 'bullmq';
import { ChainpilotError, describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import { encodeIntent } from '../journal/codec.js';
import type { IntentJobData } from './queue-names.js';

export interface IntentSubmitterOptions {
  readonly queue: Queue<IntentJobData>;
  readonly log: Logger;
  /** Job retries after a failed run (default 1000, every `retryDelayMs`, default 1000 ms). */
  readonly jobAttempts?: number;
  readonly retryDelayMs?: number;
  /** How long `submit` waits for Redis to store the job before its outcome is unknown (default 10 000 ms). */
  readonly submitTimeoutMs?: number;
  /** Reports the intent accepted: its job is in the queue. */
  readonly accepted: (intent: OrderIntent) => void;
  /** True once the executor stopped: an unknown submit is then left to the next start's reconciliation. */
  readonly stopped: () => boolean;
  /** Counts a failed re-add as a loop error. */
  readonly onLoopError: () => void;
}

export interface IntentSubmitter {
  /** Queues the intent; throws QUEUE_SUBMIT_UNKNOWN (retry `unknown_outcome`) when Redis did not confirm in time. */
  submit(intent: OrderIntent): Promise<void>;
}

/** Creates the submitter for `o.queue`. */
export function createIntentSubmitter(o: IntentSubmitterOptions): IntentSubmitter {
  const { queue, log } = o;

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
        o.accepted(intent);
        return;
      } catch (e) {
        if (o.stopped()) {
          log.warn({ intentId: intent.id, err: describeError(e) }, 'stopped before the unknown submit was settled; the next start reconciles the journal');
          return;
        }
        o.onLoopError();
        log.warn({ intentId: intent.id, err: describeError(e) }, 'adding the intent again failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * 2 ** Math.min(n, 5))));
        attempt = addJob(intent);
      }
    }
  };

  return {
    async submit(intent) {
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
        o.accepted(intent);
        return;
      }
      // Redis may have stored the job (its reply lost, or still on its way): the outcome is unknown.
      // The job id is the intent id, so adding it again is idempotent: keep adding in the background
      // until Redis answers; the worker's report settles the intent either way.
      const why = outcome === 'timeout' ? `no answer within ${timeoutMs} ms` : describeError(outcome.error);
      log.warn({ intentId: intent.id, why }, 'queueing the intent has an unknown outcome; adding it again until Redis answers');
      void settleUnknownSubmit(intent, added);
      throw new ChainpilotError('QUEUE_SUBMIT_UNKNOWN', `queueing intent ${intent.id} has an unknown outcome (${why}); it stays in flight until its report`, {
        retry: 'unknown_outcome',
        context: { intentId: intent.id },
      });
    },
  };
}
