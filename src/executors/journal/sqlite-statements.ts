/**
 * The SQLite journal's tables: the schema version by version (sqlite-schema.ts), the rows, the
 * prepared statements, and a row read back as an {@link IntentRecord}, each stored intent decoded
 * once (by its row text).
 */
import type Database from 'better-sqlite3';
import { BoundedMap } from '../../core/bounded-map.js';
import { lamports } from '../../core/units.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import { decodeFill, decodeIntent } from './codec.js';
import type { AttemptRecord, IntentRecord, IntentState } from './journal.js';
import type { SchemaPart } from './sqlite-schema.js';

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
    // version 2: the slot a LANDED or FAILED_ON_CHAIN intent's transaction landed in (NULL in older rows)
    'ALTER TABLE intents ADD COLUMN landed_slot INTEGER NULL;',
  ],
};

export interface IntentRow {
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
  landed_slot: number | null;
  reported: number;
  updated_at: number;
}

export interface AttemptRow {
  n: number;
  signature: string;
  tx_base64: string;
  blockhash: string;
  expiry_block_height: number;
  slippage_bps: number;
  state: AttemptRecord['state'];
}

/** Decoded intents kept (by row text). */
const MAX_DECODED = 4_096;

type Read<P extends unknown[], R> = Database.Statement<P, R>;
type Write = Database.Statement;

/** The journal's statements, prepared once per connection. */
export interface JournalStatements {
  readonly get: Read<[string], IntentRow>;
  readonly stateOf: Read<[string], Pick<IntentRow, 'state' | 'done'>>;
  readonly attemptCount: Read<[string], { n: number }>;
  readonly daySpent: Read<[string], { spent_lamports: string }>;
  readonly setDaySpent: Write;
  readonly checkpoint: Write;
  readonly landed: Read<[], IntentRow>;
  readonly attempts: Read<[string], AttemptRow>;
  readonly bySignature: Read<[string], { intent_id: string }>;
  readonly insert: Write;
  readonly setState: Write;
  readonly insertAttempt: Write;
  readonly setAttempt: Write;
  readonly land: Write;
  readonly fail: Write;
  readonly deny: Write;
  readonly reported: Write;
  readonly open: Read<[], IntentRow>;
}

/** Prepares every statement the journal runs on `db` (its schema in place). */
export function prepareJournalStatements(db: Database.Database): JournalStatements {
  return {
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
    land: db.prepare("UPDATE intents SET state = 'LANDED', done = 1, fill_json = ?, landed_slot = ?, updated_at = ? WHERE id = ?"),
    fail: db.prepare(
      "UPDATE intents SET state = 'FAILED_ON_CHAIN', done = 1, code = ?, reason = ?, fee_lamports = ?, landed_slot = ?, updated_at = ? WHERE id = ?",
    ),
    deny: db.prepare("UPDATE intents SET state = 'DENIED', done = 1, code = ?, reason = ?, updated_at = ? WHERE id = ?"),
    reported: db.prepare('UPDATE intents SET reported = 1, updated_at = ? WHERE id = ?'),
    open: db.prepare<[], IntentRow>('SELECT * FROM intents WHERE done = 0 OR reported = 0 ORDER BY created_at, id'),
  };
}

/** Reading rows back as records. */
export interface JournalRows {
  readonly toRecord: (row: IntentRow) => IntentRecord;
  /** Keeps `intent` as the decoding of `json` (a row just written needs no decode). */
  readonly remember: (json: string, intent: OrderIntent) => OrderIntent;
  /** Lamports the intents of `day` may spend (DENIED ones excluded). */
  readonly spentOn: (day: string) => bigint;
}

/** Reads rows through `q`, with a bounded cache of decoded intents. */
export function createJournalRows(q: JournalStatements): JournalRows {
  /** Decoded intents by their stored text: a row is decoded once, and a changed (damaged) row is a miss. */
  const decoded = new BoundedMap<string, OrderIntent>(MAX_DECODED);
  const remember = (json: string, intent: OrderIntent): OrderIntent => {
    decoded.set(json, intent);
    return intent;
  };
  const intentOf = (json: string): OrderIntent => decoded.get(json) ?? remember(json, decodeIntent(json));

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
    ...(row.landed_slot === null ? {} : { landedSlot: row.landed_slot }),
    reported: row.reported === 1,
    updatedAt: row.updated_at,
  });

  return { toRecord, remember, spentOn: (day) => BigInt(q.daySpent.get(day)?.spent_lamports ?? '0') };
}
