/**
 * The embedded intent journal: one SQLite file (better-sqlite3, WAL). Every state change is one
 * transaction, so a crash at any instant leaves either the old or the new state. What is fsynced
 * when: see sqlite-durability.ts. The state changes are in sqlite-transitions.ts (the SQLite twin
 * of redis-scripts.ts, both held to journal.ts's state machine), the tables, statements and row
 * reading in sqlite-statements.ts; this file opens the file and serves {@link IntentJournal}.
 */
import Database from 'better-sqlite3';
import type { IntentJournal } from './journal.js';
import { applyDurability, type SqliteDurability, type JournalSynchronous } from './sqlite-durability.js';
import { migrateSchema } from './sqlite-schema.js';
import { connectionSettings, limitPageCache, type SqliteConnectionSettings } from './sqlite-settings.js';
import { createJournalRows, JOURNAL_SCHEMA, prepareJournalStatements } from './sqlite-statements.js';
import { sqliteTransitions } from './sqlite-transitions.js';

/** SQLite's default automatic checkpoint size, in pages. */
const WAL_CHECKPOINT_PAGES = 1_000;
/** Reported outcomes between two checkpoints (an intent's life writes a few dozen log pages). */
const CHECKPOINT_EVERY_REPORTS = 16;
/**
 * A due checkpoint waits while an intent of this journal is between its decision and its first
 * send, at most this many reported outcomes; then it runs anyway (a stream of overlapping intents
 * would otherwise never leave a gap).
 */
const CHECKPOINT_DEFER_REPORTS = 4 * CHECKPOINT_EVERY_REPORTS;
/**
 * Size the log is cut back to when SQLite restarts it after a checkpoint (`journal_size_limit`,
 * bytes). Far above what a checkpoint interval writes (about 100 KiB per intent), so in steady
 * state the log is rewritten in place at a constant size and the fsync before a send has no file
 * size to journal; only a log grown by a burst (the backstop below) is cut back.
 */
export const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

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
  /**
   * Writes of this connection that waited for an fsync of the log (sqlite-durability.ts): with the
   * default `critical`, one per signed attempt and none for the decision's create.
   */
  syncedWrites(): number;
}

/**
 * Opens the file: WAL, durability, the schema brought up to date, checkpoints moved after reported
 * outcomes, and the day totals rebuilt.
 */
function openJournalDatabase(options: SqliteJournalOptions): { db: Database.Database; durability: SqliteDurability } {
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
  // reported while no intent is on its way to a send, not inside whichever write happens to fill
  // the log: that write may be one between an intent's build and its first send. SQLite's own
  // automatic checkpoint stays as a backstop at ten times its usual size.
  db.pragma(`wal_autocheckpoint = ${10 * WAL_CHECKPOINT_PAGES}`);
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
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
  return { db, durability };
}

/** Opens (or creates) the SQLite intent journal at `path`. */
export function openSqliteJournal(options: SqliteJournalOptions): SqliteIntentJournal {
  const { db, durability } = openJournalDatabase(options);
  const q = prepareJournalStatements(db);
  const rows = createJournalRows(q);
  const t = sqliteTransitions(db, q, rows);

  let reportsSinceCheckpoint = 0;
  /**
   * Intents this process created (or is rebuilding) and has not sent yet: a checkpoint (two fsyncs
   * and a few hundred page copies on the one thread) waits until none is on its way to a send.
   */
  const beforeSend = new Set<string>();

  return {
    create: async (intent, spend, at) => {
      const r = durability.relaxed(() => t.create(intent, spend.spendLamports, spend.day, spend.dailyCapLamports, at));
      if (r.kind === 'created') beforeSend.add(intent.id);
      return r;
    },
    get: async (id) => {
      const row = q.get.get(id);
      return row ? rows.toRecord(row) : undefined;
    },
    markBuilt: async (id, at) => durability.relaxed(() => t.markBuilt(id, at)),
    recordSigned: async (id, attempt, at) => durability.durable(() => t.recordSigned(id, attempt, at)),
    markSent: async (id, signature, at) => {
      durability.relaxed(() => t.markSent(id, signature, at));
      beforeSend.delete(id);
    },
    resolve: async (id, r, at) => {
      durability.relaxed(() => t.resolve(id, r, at));
      // an expiry that is not final is built and signed again: still on its way to a send
      if (r.state !== 'EXPIRED' || r.final) beforeSend.delete(id);
    },
    deny: async (id, code, reason, at) => {
      durability.relaxed(() => t.deny(id, code, reason, at));
      beforeSend.delete(id);
    },
    markReported: async (id, at) => {
      durability.relaxed(() => q.reported.run(at, id));
      reportsSinceCheckpoint++;
      const due = reportsSinceCheckpoint >= CHECKPOINT_EVERY_REPORTS;
      if ((due && beforeSend.size === 0) || reportsSinceCheckpoint >= CHECKPOINT_DEFER_REPORTS) {
        reportsSinceCheckpoint = 0;
        q.checkpoint.run();
      }
    },
    unresolved: async () => q.open.all().map(rows.toRecord),
    landed: async () => q.landed.all().map(rows.toRecord),
    spentOn: async (day) => rows.spentOn(day),
    settings: () => connectionSettings(db),
    syncedWrites: () => durability.syncedWrites(),
    close: async () => {
      db.close();
      durability.close();
    },
  };
}
