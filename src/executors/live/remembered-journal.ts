/**
 * The record of one intent kept in memory while it is driven: every read of it and every write the
 * journal accepted for it updates the copy, so when the journal cannot even be read
 * (`LIVE_JOURNAL_UNAVAILABLE`) the intent goes on from what this process knows it wrote: a sent
 * transaction keeps being confirmed, a landed one keeps its outcome. A write the journal refused
 * changes nothing here (the intent is driven again from the state before it).
 */
import type { AttemptRecord, IntentJournal, IntentRecord, NewAttempt, Resolution } from '../journal/journal.js';
import { isJournalUnavailable } from './journal-outage.js';

/** The last known record of the intent being driven. */
export interface RememberedRecord {
  rec?: IntentRecord;
}

/** `journal` for intent `id`, reading from and writing through `memory`. */
export function rememberedJournal(journal: IntentJournal, id: string, memory: RememberedRecord): IntentJournal {
  const patch = (at: number, change: (r: IntentRecord) => Partial<IntentRecord>): void => {
    if (memory.rec) memory.rec = { ...memory.rec, ...change(memory.rec), updatedAt: at };
  };
  const lastAttempt = (r: IntentRecord, state: AttemptRecord['state']): readonly AttemptRecord[] =>
    r.attempts.map((a, i) => (i === r.attempts.length - 1 ? { ...a, state } : a));
  const own = (other: string): boolean => other === id;
  return {
    create: (intent, spend, at) => journal.create(intent, spend, at),
    unresolved: () => journal.unresolved(),
    landed: () => journal.landed(),
    spentOn: (day) => journal.spentOn(day),
    close: () => journal.close(),
    async get(other) {
      try {
        const rec = await journal.get(other);
        if (own(other)) memory.rec = rec;
        return rec;
      } catch (e) {
        if (own(other) && isJournalUnavailable(e) && memory.rec) return memory.rec;
        throw e;
      }
    },
    async markBuilt(other, at) {
      await journal.markBuilt(other, at);
      if (own(other)) patch(at, () => ({ state: 'BUILT' }));
    },
    async recordSigned(other, attempt, at) {
      await journal.recordSigned(other, attempt, at);
      if (own(other) && memory.rec) memory.rec = withSignedAttempt(memory.rec, attempt, at);
    },
    async markSent(other, signature, at) {
      await journal.markSent(other, signature, at);
      if (own(other)) patch(at, (r) => ({ state: 'SENT', attempts: lastAttempt(r, 'SENT') }));
    },
    async resolve(other, resolution, at) {
      await journal.resolve(other, resolution, at);
      if (own(other)) patch(at, (r) => resolved(resolution, lastAttempt(r, resolution.state)));
    },
    async deny(other, code, reason, at) {
      await journal.deny(other, code, reason, at);
      if (own(other)) patch(at, () => ({ state: 'DENIED', done: true, code, reason }));
    },
    async markReported(other, at) {
      await journal.markReported(other, at);
      if (own(other)) patch(at, () => ({ reported: true }));
    },
  };
}

/**
 * `rec` after the journal accepted `attempt` for it at `at`: what a read of the row returns then
 * (the attempt numbered after the ones `rec` holds, every journal numbers them so).
 */
export function withSignedAttempt(rec: IntentRecord, attempt: NewAttempt, at: number): IntentRecord {
  const { signature, txBase64, blockhash, expiryBlockHeight, slippageBps } = attempt;
  const signed: AttemptRecord = { n: rec.attempts.length, signature, txBase64, blockhash, expiryBlockHeight, slippageBps, state: 'SIGNED' };
  return { ...rec, state: 'SIGNED', attempts: [...rec.attempts, signed], updatedAt: at };
}

function resolved(res: Resolution, attempts: readonly AttemptRecord[]): Partial<IntentRecord> {
  const slot = res.state !== 'EXPIRED' && res.landedSlot !== undefined ? { landedSlot: res.landedSlot } : {};
  if (res.state === 'LANDED') return { state: 'LANDED', done: true, fill: res.fill, attempts, ...slot };
  if (res.state === 'FAILED_ON_CHAIN')
    return { state: 'FAILED_ON_CHAIN', done: true, code: res.code, reason: res.reason, feeLamports: res.feeLamports, attempts, ...slot };
  return { state: 'EXPIRED', done: res.final, attempts };
}
