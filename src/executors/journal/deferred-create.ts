/**
 * One journal write between a decision and its first send (issue 42). The live executor and the
 * queue's wallet worker reach their journal through this decorator: `create` of an intent that
 * admission accepted writes nothing; it checks what `create` checks (the id not journaled, the
 * day's spend within the cap, counting the intents accepted and not yet written) and keeps the
 * intent in memory, NEW. The intent's first write is then `createSigned`, the decision and its
 * signed attempt in one durable transaction, before the first send. An intent that never gets
 * that far (denied by inspection, a build failure, stale) is written first (`create`, as before)
 * and then denied: two writes, none of them before a send.
 *
 * Why a decision that is not written is safe (docs/executor.md, "One write before the send"):
 * nothing of it can leave the process before `createSigned` returned, so a crash before it drops a
 * decision of which nothing was sent, never a transaction; the day cap is checked again, atomically,
 * in `createSigned`; a re-delivered intent finds the in-memory one (`exists`) or, after a crash,
 * nothing (it is built afresh) or its SIGNED row (it is confirmed, never built twice).
 *
 * A journal without `createSigned` is returned unchanged (create, then recordSigned).
 */
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import { storedIntent } from './codec.js';
import type { CreateResult, IntentJournal, IntentRecord, NewAttempt } from './journal.js';

/** An accepted decision not written yet. */
interface Pending {
  readonly intent: OrderIntent;
  readonly spend: { readonly spendLamports: bigint; readonly day: string; readonly dailyCapLamports?: bigint };
  readonly at: number;
  readonly record: IntentRecord;
}

/** Decisions accepted and not yet written, shared by every user of one journal (one wallet's writer). */
export type PendingDecisions = Map<string, Pending>;

/** A new, empty set of pending decisions (share one per journal writer). */
export function pendingDecisions(): PendingDecisions {
  return new Map();
}

/**
 * `journal` with `create` deferred to the signed attempt. `pending` is shared when several
 * decorators write one journal (the wallet worker's jobs), so the day cap counts all of them.
 */
export function deferCreate(journal: IntentJournal, pending: PendingDecisions = pendingDecisions()): IntentJournal {
  const createSigned = journal.createSigned?.bind(journal);
  if (createSigned === undefined) return journal;

  const pendingOn = (day: string): bigint => {
    let sum = 0n;
    for (const p of pending.values()) if (p.spend.day === day) sum += p.spend.spendLamports;
    return sum;
  };

  /** Writes a pending decision's NEW row (before a write that is not the signed attempt); the day cap held when it was accepted. */
  const materialize = async (id: string): Promise<void> => {
    const p = pending.get(id);
    if (!p) return;
    await journal.create(p.intent, { spendLamports: p.spend.spendLamports, day: p.spend.day }, p.at);
    pending.delete(id);
  };

  return {
    async create(intent, spend, at): Promise<CreateResult> {
      const held = pending.get(intent.id);
      if (held) return { kind: 'exists', record: held.record };
      // The sum of pending spend is taken with the journal's read, never after it: an intent
      // written meanwhile is then counted twice (it leaves `pending` only after its write returned),
      // never missed. createSigned checks the cap again, atomically.
      const waiting = pendingOn(spend.day);
      const [existing, spent] = await Promise.all([journal.get(intent.id), journal.spentOn(spend.day)]);
      const again = pending.get(intent.id);
      if (again) return { kind: 'exists', record: again.record };
      if (existing) return { kind: 'exists', record: existing };
      if (spend.dailyCapLamports !== undefined && spent + waiting + spend.spendLamports > spend.dailyCapLamports) {
        return { kind: 'over_daily_cap', spentTodayLamports: spent + waiting };
      }
      const record: IntentRecord = {
        intent: storedIntent(intent),
        state: 'NEW',
        done: false,
        spendLamports: spend.spendLamports,
        day: spend.day,
        attempts: [],
        reported: false,
        updatedAt: at,
      };
      pending.set(intent.id, { intent, spend, at, record });
      return { kind: 'created', record };
    },
    async get(id) {
      return pending.get(id)?.record ?? journal.get(id);
    },
    async recordSigned(id: string, attempt: NewAttempt, at: number) {
      const p = pending.get(id);
      if (!p) return journal.recordSigned(id, attempt, at);
      // Throws (nothing written, the decision stays pending) on a duplicate signature or a journal that cannot write.
      const r = await createSigned(p.intent, p.spend, attempt, at);
      if (r.kind === 'over_daily_cap') {
        // Only another writer of this journal's wallet can have spent meanwhile: refused before anything was sent.
        await journal.create(p.intent, { spendLamports: 0n, day: p.spend.day }, p.at);
        pending.delete(id);
        await journal.deny(
          id,
          'LIVE_SPEND_CAP_DAY',
          `day ${p.spend.day} had ${r.spentTodayLamports} lamports committed when the signed attempt was written; this intent's ${p.spend.spendLamports} would pass execution.maxDayLamports; nothing was sent`,
          at,
        );
        return;
      }
      // created; or `exists`: the id was journaled meanwhile, the caller drives that row (nothing of this attempt was sent)
      pending.delete(id);
    },
    async markBuilt(id, at) {
      await materialize(id);
      return journal.markBuilt(id, at);
    },
    async deny(id, code, reason, at) {
      await materialize(id);
      return journal.deny(id, code, reason, at);
    },
    markSent: (id, signature, at) => journal.markSent(id, signature, at),
    resolve: (id, resolution, at) => journal.resolve(id, resolution, at),
    markReported: (id, at) => journal.markReported(id, at),
    unresolved: () => journal.unresolved(),
    landed: () => journal.landed(),
    spentOn: async (day) => {
      const waiting = pendingOn(day);
      return (await journal.spentOn(day)) + waiting;
    },
    close: () => journal.close(),
  };
}
