/**
 * Every state change of the SQLite journal, each one SQLite transaction checked against the one
 * state machine every journal shares (journal.ts, `canTransition`), as redis-scripts.ts checks it in
 * Lua: a crash at any instant leaves either the old or the new state.
 */
import type Database from 'better-sqlite3';
import { ChainpilotError } from '../../core/errors.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import { encodeFill, encodeIntent, storedIntent } from './codec.js';
import { canTransition, type CreateResult, type IntentState, type NewAttempt, type Resolution } from './journal.js';
import type { AttemptRow, IntentRow, JournalRows, JournalStatements } from './sqlite-statements.js';

/** The journal's writes, each atomic; a move the state machine does not allow throws JOURNAL_BAD_TRANSITION (fatal). */
export interface SqliteTransitions {
  create(intent: OrderIntent, spend: bigint, day: string, cap: bigint | undefined, at: number): CreateResult;
  markBuilt(id: string, at: number): void;
  recordSigned(id: string, a: NewAttempt, at: number): void;
  markSent(id: string, signature: string, at: number): void;
  resolve(id: string, r: Resolution, at: number): void;
  deny(id: string, code: string, reason: string, at: number): void;
}

/** The transitions of the journal in `db`, through its statements and rows. */
export function sqliteTransitions(db: Database.Database, q: JournalStatements, rows: JournalRows): SqliteTransitions {
  const { toRecord, remember, spentOn } = rows;

  /** Loads the row's state and checks `from → to`; throws JOURNAL_BAD_TRANSITION (fatal) otherwise. */
  const expect = (id: string, to: IntentState): Pick<IntentRow, 'state' | 'done'> => {
    const row = q.stateOf.get(id);
    if (!row) {
      throw new ChainpilotError('JOURNAL_NOT_FOUND', `intent ${id} is not in the journal; submit it before changing its state`, {
        retry: 'fatal',
        context: { intentId: id },
      });
    }
    if (row.done === 1 || !canTransition(row.state, to)) {
      throw new ChainpilotError('JOURNAL_BAD_TRANSITION', `intent ${id} cannot move from ${row.state} to ${to}`, {
        retry: 'fatal',
        context: { intentId: id, from: row.state, to },
      });
    }
    return row;
  };

  const currentAttempt = (id: string, signature: string): AttemptRow => {
    const a = q.attempts.all(id).at(-1);
    if (!a || a.signature !== signature) {
      throw new ChainpilotError('JOURNAL_BAD_TRANSITION', `signature ${signature} is not the current attempt of intent ${id}`, {
        retry: 'fatal',
        context: { intentId: id, signature },
      });
    }
    return a;
  };

  const create = db.transaction((intent: OrderIntent, spend: bigint, day: string, cap: bigint | undefined, at: number): CreateResult => {
    const existing = q.get.get(intent.id);
    if (existing) return { kind: 'exists', record: toRecord(existing) };
    const spent = spentOn(day);
    if (cap !== undefined && spent + spend > cap) return { kind: 'over_daily_cap', spentTodayLamports: spent };
    const json = encodeIntent(intent);
    q.insert.run(intent.id, json, 'NEW', spend.toString(), day, at, at);
    remember(json, storedIntent(intent)); // the next get() of this row needs no decode
    q.setDaySpent.run(day, (spent + spend).toString());
    return {
      kind: 'created',
      record: { intent: storedIntent(intent), state: 'NEW', done: false, spendLamports: spend, day, attempts: [], reported: false, updatedAt: at },
    };
  });

  const markBuilt = db.transaction((id: string, at: number) => {
    expect(id, 'BUILT');
    q.setState.run('BUILT', 0, at, id);
  });

  const recordSigned = db.transaction((id: string, a: NewAttempt, at: number) => {
    expect(id, 'SIGNED');
    const n = q.attemptCount.get(id)?.n ?? 0;
    if (q.bySignature.get(a.signature)) {
      // Identical bytes (same request, same blockhash) for another decision: one landing must never count twice.
      throw new ChainpilotError('JOURNAL_DUPLICATE_SIGNATURE', `signature ${a.signature} is already journaled; rebuild intent ${id} with a newer blockhash`, {
        retry: 'retryable',
        context: { intentId: id, signature: a.signature },
      });
    }
    q.insertAttempt.run(id, n, a.signature, a.txBase64, a.blockhash, a.expiryBlockHeight, a.slippageBps, 'SIGNED', at);
    q.setState.run('SIGNED', 0, at, id);
  });

  const markSent = db.transaction((id: string, signature: string, at: number) => {
    const row = q.get.get(id);
    if (row?.state === 'SENT') return; // re-broadcasts after a restart: already SENT
    expect(id, 'SENT');
    currentAttempt(id, signature);
    q.setAttempt.run('SENT', at, id, signature);
    q.setState.run('SENT', 0, at, id);
  });

  const resolve = db.transaction((id: string, r: Resolution, at: number) => {
    expect(id, r.state);
    currentAttempt(id, r.signature);
    q.setAttempt.run(r.state, at, id, r.signature);
    if (r.state === 'LANDED') q.land.run(encodeFill(r.fill), r.landedSlot ?? null, at, id);
    else if (r.state === 'FAILED_ON_CHAIN') q.fail.run(r.code, r.reason, r.feeLamports.toString(), r.landedSlot ?? null, at, id);
    else q.setState.run('EXPIRED', r.final ? 1 : 0, at, id);
  });

  const deny = db.transaction((id: string, code: string, reason: string, at: number) => {
    expect(id, 'DENIED');
    const row = q.get.get(id)!;
    q.deny.run(code, reason, at, id);
    q.setDaySpent.run(row.day, (spentOn(row.day) - BigInt(row.spend_lamports)).toString()); // a denied intent spends nothing
  });

  return { create, markBuilt, recordSigned, markSent, resolve, deny };
}
