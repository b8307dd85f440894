/**
 * A decorator of the IntentJournal port that times every write for the deployment's telemetry
 * (SQLite or Redis alike): the journal itself stays unaware of metrics. Reads pass through.
 */
import type { IntentJournal } from '../../executors/journal/journal.js';
import type { DeploymentTelemetry, JournalWriteOp } from '../compose/deployment-telemetry.js';

/** `journal` with its writes reported to `observe`; the same journal when `observe` is undefined. */
export function timedJournal(journal: IntentJournal, observe: DeploymentTelemetry['journalWrite'] | undefined): IntentJournal {
  if (!observe) return journal;
  const timed =
    <A extends unknown[], R>(op: JournalWriteOp, write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const t0 = performance.now();
      let outcome: 'ok' | 'error' = 'error';
      try {
        const r = await write(...args);
        outcome = 'ok';
        return r;
      } finally {
        const seconds = (performance.now() - t0) / 1000;
        try {
          observe(op, seconds, outcome);
        } catch {
          // telemetry never fails a journal write
        }
      }
    };
  return {
    create: timed('create', (intent, spend, at) => journal.create(intent, spend, at)),
    markBuilt: timed('markBuilt', (id, at) => journal.markBuilt(id, at)),
    recordSigned: timed('recordSigned', (id, attempt, at) => journal.recordSigned(id, attempt, at)),
    markSent: timed('markSent', (id, signature, at) => journal.markSent(id, signature, at)),
    resolve: timed('resolve', (id, resolution, at) => journal.resolve(id, resolution, at)),
    deny: timed('deny', (id, code, reason, at) => journal.deny(id, code, reason, at)),
    markReported: timed('markReported', (id, at) => journal.markReported(id, at)),
    get: (id) => journal.get(id),
    unresolved: () => journal.unresolved(),
    landed: () => journal.landed(),
    spentOn: (day) => journal.spentOn(day),
    close: () => journal.close(),
  };
}
