/**
 * Admission against a journal: {@link admitIntent}'s rules, the daily cap checked atomically by the
 * journal, and every refusal written as a DENIED row with its code, so the in-process live
 * executor and the queue's wallet worker refuse the same way and report each refusal exactly once
 * (drive-intent reports a DENIED row as `rejected` and marks it reported).
 */
import { describeError, isChainpilotError } from '../core/errors.js';
import type { UnixMs } from '../core/units.js';
import type { OrderIntent } from '../engine/orders/execution-port.js';
import { admitIntent, dayCapDenial, utcDay, type AdmissionDenial, type AdmissionLimits } from './admission.js';
import type { IntentJournal, IntentRecord } from './journal/journal.js';

export type JournaledAdmission =
  /** Journaled NEW (`record`, as the journal holds it): drive it. */
  | { readonly kind: 'admitted'; readonly minOut: bigint; readonly record: IntentRecord }
  /** Refused: journaled DENIED (unless `journaled` is false: an id no row can carry), to be reported. */
  | { readonly kind: 'denied'; readonly denial: AdmissionDenial; readonly journaled: boolean; readonly journalError?: string }
  /** The journal already holds this id (a re-delivery, or another decision under the same id). */
  | { readonly kind: 'exists'; readonly record: IntentRecord };

/** Admits `intent` into `journal` at `at`; a refusal is journaled DENIED with the admission's code. */
export async function admitIntoJournal(journal: IntentJournal, intent: OrderIntent, limits: AdmissionLimits, at: UnixMs): Promise<JournaledAdmission> {
  const admission = admitIntent(intent, limits, at);
  let denial: AdmissionDenial;
  if (admission.ok) {
    const created = await journal.create(intent, { spendLamports: admission.spendLamports, day: admission.day, dailyCapLamports: limits.maxDayLamports }, at);
    if (created.kind === 'created') return { kind: 'admitted', minOut: admission.minOut, record: created.record };
    if (created.kind === 'exists') return { kind: 'exists', record: created.record };
    denial = dayCapDenial(admission.day, created.spentTodayLamports, admission.spendLamports, limits.maxDayLamports);
  } else {
    denial = admission;
    // An id no journal row can carry (empty, too long, not a string) is refused without a row.
    if (typeof intent.id !== 'string' || intent.id.length === 0 || intent.id.length > 128) return { kind: 'denied', denial, journaled: false };
  }
  try {
    const row = await journal.create(intent, { spendLamports: 0n, day: utcDay(at) }, at);
    if (row.kind === 'exists' && row.record.state !== 'NEW') return { kind: 'exists', record: row.record };
    await journal.deny(intent.id, denial.code, denial.reason, at);
  } catch (e) {
    // A malformed intent the journal cannot encode: refused all the same, reported by the caller.
    // A journal that cannot write is not about the intent: the caller refuses it and settles the row later.
    if (denial.code !== 'LIVE_INVALID_INTENT' || isChainpilotError(e, 'LIVE_JOURNAL_UNAVAILABLE')) throw e;
    return { kind: 'denied', denial, journaled: false, journalError: describeError(e) };
  }
  return { kind: 'denied', denial, journaled: true };
}
