/**
 * The store of a deployment: one SQLite file holding the intent journal, the owner of the store
 * (deployment name, and wallet address in live mode) and the durable risk state (risk day,
 * daily-loss halt, kill switch). `store.path` resolves against the deployment file's directory,
 * like strategy paths. Opening a store that another deployment or wallet owns is refused with
 * RUNTIME_STORE_FOREIGN naming both; a store is held by one process at a time (a lock file, see
 * store-lock.ts), and a second process is refused with RUNTIME_STORE_LOCKED naming the holder's pid.
 * A paper deployment's store also holds its paper book (paper-book.ts); a store is either a live
 * wallet's or a paper book's, never both (the other kind is refused with RUNTIME_STORE_FOREIGN).
 *
 * Durability: a live store commits every write with `synchronous = FULL` (a journaled intent
 * survives a power loss). A paper store uses `synchronous = NORMAL` and batches its book's writes
 * (paper-book.ts): a commit survives a crash of the process, and only a power loss or OS crash may
 * take back the last commits; docs/daemon.md says why that is the right trade for paper.
 */
import { ensureDir } from './ensure-dir.js';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ChainpilotError, lamports, type UnixMs } from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';
import type { RestoredFailedFee, RestoredFill } from '../../engine/engine.js';
import type { PersistedRiskState, RiskStateStore } from '../../engine/orders/risk-day.js';
import { decodeIntent } from '../../executors/journal/codec.js';
import type { IntentJournal } from '../../executors/journal/journal.js';
import { openSqliteJournal, type SqliteIntentJournal } from '../../executors/journal/sqlite-journal.js';
import { connectionSettings, limitPageCache, PAPER_STORE_CACHE_KIB, type SqliteConnectionSettings } from '../../executors/journal/sqlite-settings.js';
import { migrateSchema, type SchemaPart } from '../../executors/journal/sqlite-schema.js';
import { openPaperBook, type PaperBook, type PaperBookOptions } from './paper-book.js';
import { CHECKPOINT_EVERY_COMMITS, requestWalCheckpoint } from './wal-checkpointer.js';
import { acquireStoreLock, type StoreLockOptions } from './store-lock.js';

/** The store's own tables (owner, risk state), version by version (sqlite-schema.ts). */
const STORE_SCHEMA: SchemaPart = {
  name: 'store',
  migrations: [
    `
CREATE TABLE IF NOT EXISTS store_owner (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS risk_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  day_started_at INTEGER NOT NULL,
  day_start_equity TEXT NOT NULL,
  daily_halted INTEGER NOT NULL,
  kill_reason TEXT
);
`,
  ],
};

export interface DeploymentStoreOptions {
  /** Absolute path of the store file (see {@link resolveStorePath}). */
  readonly path: string;
  /** The deployment's `name`. */
  readonly deployment: string;
  /** The wallet address (live); a paper store has none. */
  readonly wallet?: string;
  /** A paper store: its book is kept for `market` (see paper-book.ts); `at` resolves intents left pending. */
  readonly paper?: { readonly market: string; readonly at: number } & PaperBookOptions;
  readonly lock?: StoreLockOptions;
  /**
   * A store for a chain that starts with this run (a live rehearsal on the embedded simulator): a
   * store left at `path` by an earlier run belongs to a chain that no longer exists, so it is moved
   * to `<path>.previous` (replacing an older one) and this run starts a fresh journal, recording `chain`.
   */
  readonly freshChain?: string;
}

export interface DeploymentStore {
  readonly path: string;
  readonly journal: IntentJournal;
  /** The engine's risk-state port (risk day, halt, kill switch). */
  readonly risk: RiskStateStore;
  /** The paper book (paper stores only). */
  readonly paper: PaperBook | undefined;
  /** The chain the store belongs to (recorded on first use; undefined for stores that never recorded one). */
  readonly chain: string | undefined;
  /** Where an earlier run's store was moved (`freshChain` only), or undefined when there was none. */
  readonly previous: string | undefined;
  /** The settings of the store's two connections (its own, which also writes the paper book, and the journal's), as SQLite reports them. */
  settings(): { readonly store: SqliteConnectionSettings; readonly journal: SqliteConnectionSettings };
  /** Landed fills and failed-transaction fees of every journaled intent, in the order they resolved. */
  restored(): Promise<{ readonly fills: readonly RestoredFill[]; readonly failedFees: readonly RestoredFailedFee[] }>;
  /** Closes the journal and the store and releases the lock. Idempotent. */
  close(): Promise<void>;
}

/** `store.path` of `loaded`, resolved against the deployment file's directory (absolute paths stay). */
export function resolveStorePath(loaded: LoadedDeployment): string {
  const p = loaded.deployment.store.path;
  return isAbsolute(p) ? p : resolve(dirname(resolve(loaded.file)), p);
}

/** Locks, opens and claims the store; see the module comment. */
export function openDeploymentStore(o: DeploymentStoreOptions): DeploymentStore {
  ensureDir(dirname(o.path));
  const lock = acquireStoreLock(o.path, o.lock);
  let previous: string | undefined;
  let db: Database.Database | undefined;
  let journal: SqliteIntentJournal | undefined;
  let paper: PaperBook | undefined;
  try {
    db = openDb(o.path, o.paper !== undefined);
    claimOwner(db, o); // a store of another deployment or wallet is refused, never set aside
    if (o.freshChain !== undefined && hasHistory(db)) {
      db.close();
      previous = setAside(o.path);
      db = openDb(o.path, o.paper !== undefined);
      claimOwner(db, o);
    }
    if (o.freshChain !== undefined) db.prepare('INSERT OR REPLACE INTO store_owner (key, value) VALUES (?, ?)').run('chain', o.freshChain);
    if (o.paper) {
      // checkpoints off the main thread (openDb turned SQLite's own off): wal-checkpointer.ts
      let commits = 0;
      const path = o.path;
      const committed = (): void => {
        if (++commits % CHECKPOINT_EVERY_COMMITS === 0) requestWalCheckpoint(path);
      };
      paper = openPaperBook(db, o.paper.market, o.paper.at, { ...o.paper, committed });
    }
    // a paper store's journal connection gets the book's bounded page cache too (openDb)
    journal = openSqliteJournal({ path: o.path, ...(o.paper ? { cacheKib: PAPER_STORE_CACHE_KIB } : {}) });
  } catch (e) {
    db?.close();
    lock.release();
    throw e;
  }
  const conn = db;
  const j = journal;
  const getRisk = conn.prepare<[], { day_started_at: number; day_start_equity: string; daily_halted: number; kill_reason: string | null }>(
    'SELECT * FROM risk_state WHERE id = 1',
  );
  const putRisk = conn.prepare(
    'INSERT INTO risk_state (id, day_started_at, day_start_equity, daily_halted, kill_reason) VALUES (1, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET day_started_at = excluded.day_started_at, day_start_equity = excluded.day_start_equity, daily_halted = excluded.daily_halted, kill_reason = excluded.kill_reason',
  );
  const resolvedRows = conn.prepare<[], { state: string; intent_json: string; fill_json: string | null; fee_lamports: string | null; updated_at: number }>(
    "SELECT state, intent_json, fill_json, fee_lamports, updated_at FROM intents WHERE state IN ('LANDED', 'FAILED_ON_CHAIN') ORDER BY updated_at, rowid",
  );
  let closed = false;
  const chain = conn.prepare<[string], { value: string }>('SELECT value FROM store_owner WHERE key = ?').get('chain')?.value;
  return {
    path: o.path,
    journal: j,
    paper,
    chain,
    previous,
    settings: () => ({ store: connectionSettings(conn), journal: j.settings() }),
    risk: {
      load(): PersistedRiskState | undefined {
        const r = getRisk.get();
        return r
          ? {
              dayStartedAt: r.day_started_at as UnixMs,
              dayStartEquityLamports: BigInt(r.day_start_equity),
              dailyHalted: r.daily_halted === 1,
              killReason: r.kill_reason ?? undefined,
            }
          : undefined;
      },
      save(s) {
        // the book's queued changes first: on disk, a halt or a new risk day never runs ahead of the fills behind it
        paper?.flush();
        putRisk.run(s.dayStartedAt, s.dayStartEquityLamports.toString(), s.dailyHalted ? 1 : 0, s.killReason ?? null);
      },
    },
    async restored() {
      const landed = new Map((await j.landed()).map((r) => [r.intent.id, r]));
      const fills: RestoredFill[] = [];
      const failedFees: RestoredFailedFee[] = [];
      for (const row of resolvedRows.all()) {
        const intent = decodeIntent(row.intent_json);
        if (row.state === 'LANDED') {
          const fill = landed.get(intent.id)?.fill;
          // seen when the journal recorded it landed, on the run clock of that run
          if (fill) fills.push({ strategyId: intent.strategyId, fill, seenAt: row.updated_at as UnixMs });
        } else if (row.fee_lamports !== null && BigInt(row.fee_lamports) > 0n) {
          failedFees.push({ strategyId: intent.strategyId, mint: intent.mint, feeLamports: lamports(BigInt(row.fee_lamports)) });
        }
      }
      return { fills, failedFees };
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        try {
          paper?.flush();
        } finally {
          await j.close();
          conn.close();
        }
      } finally {
        lock.release();
      }
    },
  };
}

function openDb(path: string, paper: boolean): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // A paper store's book is written in batches at NORMAL (the durability argument: docs/daemon.md).
  db.pragma(paper ? 'synchronous = NORMAL' : 'synchronous = FULL');
  // a paper book's checkpoints (the WAL's syncs) run in a worker thread (wal-checkpointer.ts), not inside a
  // commit of the main thread; SQLite's own stays as a backstop at 10,000 pages (a worker that failed)
  if (paper) db.pragma('wal_autocheckpoint = 10000');
  // A paper book grows for as long as the deployment runs: without a bound its page cache grows with it,
  // to better-sqlite3's 16 MB per connection (sqlite-settings.ts; docs/daemon.md, "Memory over time").
  if (paper) limitPageCache(db, PAPER_STORE_CACHE_KIB);
  db.pragma('busy_timeout = 5000');
  try {
    migrateSchema(db, path, STORE_SCHEMA);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** True when the store holds anything of an earlier run: a journaled intent, risk state or a recorded chain. */
function hasHistory(db: Database.Database): boolean {
  const one = (sql: string): boolean => db.prepare(sql).get() !== undefined;
  const intents = one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'intents'") && one('SELECT 1 FROM intents LIMIT 1');
  return intents || one('SELECT 1 FROM risk_state LIMIT 1') || one("SELECT 1 FROM store_owner WHERE key = 'chain'");
}

/** Moves the store at `path` (and its WAL files) to `<path>.previous`, replacing an older one; returns that path, or undefined when there was no store. */
function setAside(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const to = `${path}.previous`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${to}${suffix}`, { force: true });
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(`${path}${suffix}`)) renameSync(`${path}${suffix}`, `${to}${suffix}`);
  return to;
}

/** Records the owner on first use; refuses a store that another deployment or wallet owns. */
function claimOwner(db: Database.Database, o: DeploymentStoreOptions): void {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM store_owner WHERE key = ?');
  const put = db.prepare('INSERT INTO store_owner (key, value) VALUES (?, ?)');
  db.transaction(() => {
    const deployment = get.get('deployment')?.value;
    const wallet = get.get('wallet')?.value;
    const kind = get.get('kind')?.value ?? (wallet !== undefined ? 'live' : undefined);
    const ours = o.paper ? 'paper' : o.wallet !== undefined ? 'live' : undefined;
    if (deployment !== undefined && deployment !== o.deployment) throw foreign(o, 'deployment', deployment, o.deployment);
    if (wallet !== undefined && o.wallet !== undefined && wallet !== o.wallet) throw foreign(o, 'wallet', wallet, o.wallet);
    if (ours !== undefined && kind !== undefined && kind !== ours)
      throw foreign(o, 'kind', kind === 'live' ? `live (wallet ${wallet ?? 'unknown'})` : 'paper (a paper book)', ours);
    if (deployment === undefined) put.run('deployment', o.deployment);
    if (wallet === undefined && o.wallet !== undefined) put.run('wallet', o.wallet);
    if (ours !== undefined && get.get('kind') === undefined) put.run('kind', ours);
  }).immediate();
}

function foreign(o: DeploymentStoreOptions, what: 'deployment' | 'wallet' | 'kind', owner: string, ours: string): ChainpilotError {
  const message =
    what === 'kind'
      ? `store ${o.path} is the store of a ${owner} deployment, not of a ${ours} one; give the ${ours} deployment its own store.path (paths resolve against the deployment file)`
      : `store ${o.path} belongs to ${what} ${owner}, not to this ${what} ${ours}; point store.path at this deployment's own store (paths resolve against the deployment file)`;
  const key = { deployment: 'storeDeployment', wallet: 'storeWallet', kind: 'storeKind' }[what];
  return new ChainpilotError('RUNTIME_STORE_FOREIGN', message, {
    retry: 'not_retryable',
    context: { store: o.path, field: 'store.path', [key]: owner, [what]: ours },
  });
}
