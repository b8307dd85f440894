/**
 * What the live executor does while its journal cannot write (a full disk, an I/O error, Redis
 * unreachable): issue 38, cases 4 and 5. The executor reaches the journal only through
 * {@link JournalOutage.journal}, which turns a write the journal could not make into
 * `LIVE_JOURNAL_UNAVAILABLE` (retryable) and keeps the outage's account: which intents wait for the
 * journal to accept a write, since when, and how many new intents were refused meanwhile. The
 * state machine's own refusals (`JOURNAL_BAD_TRANSITION`, `JOURNAL_DUPLICATE_SIGNATURE`, ...) pass
 * through unchanged: they are answers, not an outage.
 *
 * The outage opens with the first failed call and closes when every intent that saw a failure had
 * a write accepted again and no new intent was refused since the last accepted write; `onChange`
 * hears both edges once, so one outage is one notification.
 */
import { ChainpilotError, describeError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { UnixMs } from '../../core/units.js';
import { createRepeatLimiter } from '../../engine/logs/repeat-limiter.js';
import type { IntentJournal } from '../journal/journal.js';

/** The journal calls the executor makes while it runs (start-up reads pass through unguarded). */
export type JournalOp = 'create' | 'get' | 'markBuilt' | 'recordSigned' | 'markSent' | 'resolve' | 'deny' | 'markReported';

/** The journal's health as the executor sees it. */
export interface JournalHealth {
  /** True from the first failed journal call until the journal accepted what was waiting. */
  readonly degraded: boolean;
  /** While degraded: `LIVE_JOURNAL_UNAVAILABLE: ...` naming the first failed call of the outage. */
  readonly reason?: string;
  /** While degraded: when the outage began (run clock). */
  readonly since?: UnixMs;
  /** Intents kept in memory with a journal write not yet accepted. */
  readonly waiting: number;
  /** New intents refused during this outage because the journal could not write them. */
  readonly refused: number;
}

export interface JournalOutageOptions {
  readonly journal: IntentJournal;
  readonly clock: Clock;
  readonly log: Logger;
  /** Counts a failed journal call (`journal-error`) and an intent refused for it (`journal-refusal`). */
  readonly count: (what: 'journal-error' | 'journal-refusal') => void;
  /** Called when the outage opens and when it closes (not for every failure in between). */
  readonly onChange?: (health: JournalHealth) => void;
}

export interface JournalOutage {
  /** The journal every executor path uses: failures become `LIVE_JOURNAL_UNAVAILABLE`. */
  readonly journal: IntentJournal;
  health(): JournalHealth;
  /**
   * Accounts for an intent refused because the journal could not write it: logged at error (one line
   * per minute of the run clock, with the count held back), counted. Returns the refusal's reason.
   */
  refused(intentId: string, error: unknown): string;
}

/** True when `e` is a journal call that failed for want of a writable journal (retry later). */
export function isJournalUnavailable(e: unknown): e is ChainpilotError {
  return e instanceof ChainpilotError && e.code === 'LIVE_JOURNAL_UNAVAILABLE';
}

/**
 * A failure of the journal's storage rather than an answer of its state machine: anything that is
 * not a coded error (SQLite's `SQLITE_FULL`, `SQLITE_IOERR`, a socket error), or a coded one whose
 * retry class says "try again" (except a duplicate signature, which asks for a rebuild).
 */
function cannotWrite(e: unknown): boolean {
  if (!(e instanceof ChainpilotError)) return true;
  if (e.code === 'JOURNAL_DUPLICATE_SIGNATURE') return false;
  return e.retry === 'retryable' || e.retry === 'unknown_outcome';
}

interface Waiting {
  readonly op: JournalOp;
  readonly write: boolean;
}

/** Wraps `o.journal` and keeps the outage's account. */
export function createJournalOutage(o: JournalOutageOptions): JournalOutage {
  const { journal, clock, log } = o;
  const waiting = new Map<string, Waiting>();
  const lines = createRepeatLimiter(clock);
  let refusing = false;
  let open: { since: UnixMs; reason: string; refused: number } | undefined;

  const health = (): JournalHealth =>
    open
      ? { degraded: true, reason: open.reason, since: open.since, waiting: waiting.size, refused: open.refused }
      : { degraded: false, waiting: 0, refused: 0 };

  const settle = (first?: string): void => {
    const degraded = waiting.size > 0 || refusing;
    if (degraded && !open) {
      open = { since: clock.now(), reason: `LIVE_JOURNAL_UNAVAILABLE: ${first ?? 'the journal cannot write'}`, refused: 0 };
      log.error({ reason: open.reason }, 'journal outage: intents already sent are kept in memory and retried, new intents are refused until it writes again');
    } else if (!degraded && open) {
      log.info({ outageMs: clock.now() - open.since, refused: open.refused }, 'journal outage over: the journal accepted every waiting write');
      open = undefined;
    } else return;
    notify();
  };
  const notify = (): void => {
    try {
      o.onChange?.(health());
    } catch (e) {
      log.error({ err: describeError(e) }, 'journal health listener threw');
    }
  };

  const failed = (op: JournalOp, id: string, write: boolean, e: unknown): ChainpilotError => {
    o.count('journal-error');
    const what = `journal ${op} of intent ${id} failed: ${describeError(e)}`;
    if (op === 'create') refusing = true;
    else {
      const before = waiting.get(id);
      // a failed write outranks a failed read: the intent waits until a write is accepted
      if (!before?.write) waiting.set(id, { op, write });
      const r = lines.admit(`failed\u0000${op}`);
      if (r.write)
        log.error(
          { intentId: id, op, err: describeError(e), ...(r.held > 0 ? { repeated: r.held } : {}) },
          'journal call failed: the intent is kept in memory and its write retried',
        );
    }
    settle(what);
    return new ChainpilotError('LIVE_JOURNAL_UNAVAILABLE', what, { retry: 'retryable', cause: e, context: { intentId: id, op } });
  };

  const accepted = (id: string, write: boolean): void => {
    if (write) refusing = false;
    const w = waiting.get(id);
    if (w && (write || !w.write)) waiting.delete(id);
    if (open) settle();
  };

  /** Runs one journal call for intent `id`, keeping the outage's account. */
  const run = async <R>(op: JournalOp, id: string, write: boolean, call: () => Promise<R>): Promise<R> => {
    let r: R;
    try {
      r = await call();
    } catch (e) {
      if (!cannotWrite(e)) throw e;
      throw failed(op, id, write, e);
    }
    accepted(id, write);
    return r;
  };

  const guarded: IntentJournal = {
    create: (intent, spend, at) => run('create', intent.id, true, () => journal.create(intent, spend, at)),
    get: (id) => run('get', id, false, () => journal.get(id)),
    markBuilt: (id, at) => run('markBuilt', id, true, () => journal.markBuilt(id, at)),
    recordSigned: (id, attempt, at) => run('recordSigned', id, true, () => journal.recordSigned(id, attempt, at)),
    markSent: (id, signature, at) => run('markSent', id, true, () => journal.markSent(id, signature, at)),
    resolve: (id, resolution, at) => run('resolve', id, true, () => journal.resolve(id, resolution, at)),
    deny: (id, code, reason, at) => run('deny', id, true, () => journal.deny(id, code, reason, at)),
    markReported: (id, at) => run('markReported', id, true, () => journal.markReported(id, at)),
    unresolved: () => journal.unresolved(),
    landed: () => journal.landed(),
    spentOn: (day) => journal.spentOn(day),
    close: () => journal.close(),
  };

  return {
    journal: guarded,
    health,
    refused(intentId, error) {
      o.count('journal-refusal');
      if (open) open.refused++;
      const reason = `the journal cannot write, so nothing was built (${describeError(error)}); the intent was refused`;
      const r = lines.admit('refused');
      if (r.write) log.error({ intentId, reason, ...(r.held > 0 ? { repeated: r.held } : {}) }, 'intent refused: the journal cannot write');
      return reason;
    },
  };
}
