/**
 * The embedded intent journal: one SQLite file (better-sqlite3, WAL). Every state change is one
 * transaction, so a crash at any instant leaves either the old or the new state. What is fsynced
 * when: see sqlite-durability.ts.
 */
import { migrateSchema, type SchemaPart } from './sqlite-schema.js';
import Database from 'better-sqlite3';
import { BoundedMap } from '../../core/bounded-map.js';
import { ChainpilotError } from '../../core/errors.js';
import { lamports } from '../../core/units.js';
import type { OrderIntent } from '../../engine/execution-port.js';
import { decodeFill, decodeIntent, encodeFill, encodeIntent, storedIntent } from './codec.js';
import { applyDurability, type JournalSynchronous } from './sqlite-durability.js';
import { connectionSettings, limitPageCache, type SqliteConnectionSettings } from './sqlite-settings.js';
import {
  canTransition,
  type AttemptRecord,
  type CreateResult,
  type IntentJournal,
  type IntentRecord,
  type IntentState,
  type NewAttempt,
  type Resolution,
} from './journal.js';

/** The journal's schema, version by version (sqlite-schema.ts); version 1 is what files without versions hold. */
export const JOURNAL_SCHEMA: SchemaPart = {
  name: 'journal',
  migrations: [
    `
CREATE TABLE IF NOT EXISTS intents (
  id TEXT PRIMARY KEY,
  intent_json TEXT NOT NULL,
  state TEXT NOT NULL,
  done INTEGER NOT NULL DEFAULT 0,
  spend_lamports TEXT NOT NULL,
  day TEXT NOT NULL,
  code TEXT, reason TEXT, fill_json TEXT, fee_lamports TEXT,
  reported INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS intents_open ON intents (done, reported);
CREATE TABLE IF NOT EXISTS day_spend (
  day TEXT PRIMARY KEY,
  spent_lamports TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS intents_day ON intents (day);
CREATE TABLE IF NOT EXISTS attempts (
  intent_id TEXT NOT NULL REFERENCES intents(id),
  n INTEGER NOT NULL,
  signature TEXT NOT NULL UNIQUE,
  tx_base64 TEXT NOT NULL,
  blockhash TEXT NOT NULL,
  expiry_block_height INTEGER NOT NULL,
  slippage_bps INTEGER NOT NULL,
  state TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (intent_id, n)
);
`,
  ],
};

interface IntentRow {
  id: string;
  intent_json: string;
  state: IntentState;
  done: number;
  spend_lamports: string;
  day: string;
  code: string | null;
  reason: string | null;
  fill_json: string | null;
  fee_lamports: string | null;
  reported: number;
  updated_at: number;
}

interface AttemptRow {
  n: number;
  signature: string;
  tx_base64: string;
  blockhash: string;
  expiry_block_height: number;
  slippage_bps: number;
  state: AttemptRecord['state'];
}

/** SQLite's default automatic checkpoint size, in pages. */
const WAL_CHECKPOINT_PAGES = 1_000;
/** Reported outcomes between two checkpoints (an intent's life writes a few dozen log pages). */
const CHECKPOINT_EVERY_REPORTS = 16;
/** Decoded intents kept (by row text). */
const MAX_DECODED = 4_096;

export interface SqliteJournalOptions {
  /** Path of the journal file (created if missing). */
  readonly path: string;
  /**
   * `critical` (default) fsyncs the signed attempt before its first send, which also makes every
   * earlier change durable; nothing that left the process is ever forgotten, even on power loss
   * (docs/executor.md, "Durability"). `full` fsyncs every state change. `normal` survives any
   * process crash but may lose the last changes on power loss or an OS crash, which could let a
   * sent transaction be forgotten: use it only where that risk is accepted.
   */
  readonly synchronous?: JournalSynchronous;
  /** Bound of the connection's page cache in KiB (sqlite-settings.ts); default better-sqlite3's 16,000. */
  readonly cacheKib?: number;
}

/** The SQLite journal, with its connection's settings as SQLite reports them. */
export interface SqliteIntentJournal extends IntentJournal {
  settings(): SqliteConnectionSettings;
}

/** Opens (or creates) the SQLite intent journal at `path`. */
export function openSqliteJournal(options: SqliteJournalOptions): SqliteIntentJournal {
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  const durability = applyDurability(db, options.synchronous);
  db.pragma('busy_timeout = 5000');
  if (options.cacheKib !== undefined) limitPageCache(db, options.cacheKib);
  try {
    migrateSchema(db, options.path, JOURNAL_SCHEMA);
  } catch (e) {
    db.close();
    throw e;
  }
  // Checkpoints (copying the log into the database file, with two fsyncs) run after an outcome is
  // reported, not inside whichever write happens to fill the log: that write may be one between
  // an intent's build and its first send. SQLite's own automatic checkpoint stays as a backstop
  // at ten times its usual size.
  db.pragma(`wal_autocheckpoint = ${10 * WAL_CHECKPOINT_PAGES}`);
  // The day totals are derived data: rebuilt from the intents on every open, so a journal written
  // by a version without them (or an older version after this one) opens with exact totals.
  db.transaction(() => {
    // Derived data, so not versioned: made again here if a file lacks it.
    db.exec('CREATE TABLE IF NOT EXISTS day_spend (day TEXT PRIMARY KEY, spent_lamports TEXT NOT NULL)');
    db.prepare('DELETE FROM day_spend').run();
    db.prepare(
      "INSERT INTO day_spend (day, spent_lamports) SELECT day, CAST(SUM(CAST(spend_lamports AS INTEGER)) AS TEXT) FROM intents WHERE state <> 'DENIED' GROUP BY day",
    ).run();
  })();

  const q = {
    get: db.prepare<[string], IntentRow>('SELECT * FROM intents WHERE id = ?'),
    stateOf: db.prepare<[string], Pick<IntentRow, 'state' | 'done'>>('SELECT state, done FROM intents WHERE id = ?'),
    attemptCount: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM attempts WHERE intent_id = ?'),
    daySpent: db.prepare<[string], { spent_lamports: string }>('SELECT spent_lamports FROM day_spend WHERE day = ?'),
    setDaySpent: db.prepare(
      'INSERT INTO day_spend (day, spent_lamports) VALUES (?, ?) ON CONFLICT(day) DO UPDATE SET spent_lamports = excluded.spent_lamports',
    ),
    checkpoint: db.prepare('PRAGMA wal_checkpoint(PASSIVE)'),
    landed: db.prepare<[], IntentRow>("SELECT * FROM intents WHERE state = 'LANDED' ORDER BY updated_at, rowid"),
    attempts: db.prepare<[string], AttemptRow>('SELECT * FROM attempts WHERE intent_id = ? ORDER BY n'),
    bySignature: db.prepare<[string], { intent_id: string }>('SELECT intent_id FROM attempts WHERE signature = ?'),
    insert: db.prepare('INSERT INTO intents (id, intent_json, state, spend_lamports, day, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    setState: db.prepare('UPDATE intents SET state = ?, done = ?, updated_at = ? WHERE id = ?'),
    insertAttempt: db.prepare(
      'INSERT INTO attempts (intent_id, n, signature, tx_base64, blockhash, expiry_block_height, slippage_bps, state, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    setAttempt: db.prepare('UPDATE attempts SET state = ?, updated_at = ? WHERE intent_id = ? AND signature = ?'),
    land: db.prepare("UPDATE intents SET state = 'LANDED', done = 1, fill_json = ?, updated_at = ? WHERE id = ?"),
    fail: db.prepare("UPDATE intents SET state = 'FAILED_ON_CHAIN', done = 1, code = ?, reason = ?, fee_lamports = ?, updated_at = ? WHERE id = ?"),
    deny: db.prepare("UPDATE intents SET state = 'DENIED', done = 1, code = ?, reason = ?, updated_at = ? WHERE id = ?"),
    reported: db.prepare('UPDATE intents SET reported = 1, updated_at = ? WHERE id = ?'),
    open: db.prepare<[], IntentRow>('SELECT * FROM intents WHERE done = 0 OR reported = 0 ORDER BY created_at, id'),
  };

  /** Decoded intents by their stored text: a row is decoded once, and a changed (damaged) row is a miss. */
  const decoded = new BoundedMap<string, OrderIntent>(MAX_DECODED);
  const remember = (json: string, intent: OrderIntent): OrderIntent => {
    decoded.set(json, intent);
    return intent;
  };
  const intentOf = (json: string): OrderIntent => decoded.get(json) ?? remember(json, decodeIntent(json));
  const spentOn = (day: string): bigint => BigInt(q.daySpent.get(day)?.spent_lamports ?? '0');

  const toRecord = (row: IntentRow): IntentRecord => ({
    intent: intentOf(row.intent_json),
    state: row.state,
    done: row.done === 1,
    spendLamports: BigInt(row.spend_lamports),
    day: row.day,
    attempts: q.attempts.all(row.id).map((a) => ({
      n: a.n,
      signature: a.signature,
      txBase64: a.tx_base64,
      blockhash: a.blockhash,
      expiryBlockHeight: a.expiry_block_height,
      slippageBps: a.slippage_bps,
      state: a.state,
    })),
    ...(row.code === null ? {} : { code: row.code }),
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.fill_json === null ? {} : { fill: decodeFill(row.fill_json) }),
    ...(row.fee_lamports === null ? {} : { feeLamports: lamports(BigInt(row.fee_lamports)) }),
    reported: row.reported === 1,
    updatedAt: row.updated_at,
  });

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
    if (r.state === 'LANDED') q.land.run(encodeFill(r.fill), at, id);
    else if (r.state === 'FAILED_ON_CHAIN') q.fail.run(r.code, r.reason, r.feeLamports.toString(), at, id);
    else q.setState.run('EXPIRED', r.final ? 1 : 0, at, id);
  });

  const deny = db.transaction((id: string, code: string, reason: string, at: number) => {
    expect(id, 'DENIED');
    const row = q.get.get(id)!;
    q.deny.run(code, reason, at, id);
    q.setDaySpent.run(row.day, (spentOn(row.day) - BigInt(row.spend_lamports)).toString()); // a denied intent spends nothing
  });

  let reportsSinceCheckpoint = 0;

  return {
    create: async (intent, spend, at) => create(intent, spend.spendLamports, spend.day, spend.dailyCapLamports, at),
    get: async (id) => {
      const row = q.get.get(id);
      return row ? toRecord(row) : undefined;
    },
    markBuilt: async (id, at) => markBuilt(id, at),
    recordSigned: async (id, attempt, at) => durability.durable(() => recordSigned(id, attempt, at)),
    markSent: async (id, signature, at) => markSent(id, signature, at),
    resolve: async (id, r, at) => resolve(id, r, at),
    deny: async (id, code, reason, at) => deny(id, code, reason, at),
    markReported: async (id, at) => {
      q.reported.run(at, id);
      if (++reportsSinceCheckpoint >= CHECKPOINT_EVERY_REPORTS) {
        reportsSinceCheckpoint = 0;
        q.checkpoint.run();
      }
    },
    unresolved: async () => q.open.all().map(toRecord),
    landed: async () => q.landed.all().map(toRecord),
    spentOn: async (day) => spentOn(day),
    settings: () => connectionSettings(db),
    close: async () => {
      db.close();
    },
  };
}
