/**
 * Per-connection SQLite settings that bound a store's memory, and a readout of them. better-sqlite3
 * builds SQLite with a page cache of 16,000 KiB per connection (`SQLITE_DEFAULT_CACHE_SIZE=-16000`,
 * eight times SQLite's own default), allocated page by page as the connection touches pages: a
 * file that keeps growing (a paper book keeps every intent) fills it, up to 16 MB per connection
 * and never given back. A daemon with a hundred paper books holds two connections per book, so
 * that cache grew with the books for the whole run (docs/daemon.md, "Memory over time").
 */
import type Database from 'better-sqlite3';

/**
 * Page cache of each connection of a paper store, in KiB (128 pages of 4 KiB). A book's writes
 * touch the right edge of three B-trees (the table and its two indexes, monotonic keys) and the
 * rows of intents still pending: a few dozen pages.
 */
export const PAPER_STORE_CACHE_KIB = 512;

/** What SQLite reports for a connection (pragmas are per connection, not stored in the file). */
export interface SqliteConnectionSettings {
  /** The page cache's bound in KiB (`cache_size`, converted when it is given in pages). */
  readonly cacheKib: number;
  readonly walAutocheckpointPages: number;
  /** 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA. */
  readonly synchronous: number;
  readonly journalMode: string;
}

/** Bounds the connection's page cache to `kib` KiB. */
export function limitPageCache(db: Database.Database, kib: number): void {
  db.pragma(`cache_size = -${Math.max(1, Math.floor(kib))}`);
}

/** Reads the connection's settings back from SQLite. */
export function connectionSettings(db: Database.Database): SqliteConnectionSettings {
  const num = (pragma: string): number => Number(db.pragma(pragma, { simple: true }));
  const cache = num('cache_size');
  return {
    // a negative cache_size is KiB, a positive one pages
    cacheKib: cache < 0 ? -cache : (cache * num('page_size')) / 1024,
    walAutocheckpointPages: num('wal_autocheckpoint'),
    synchronous: num('synchronous'),
    journalMode: String(db.pragma('journal_mode', { simple: true })),
  };
}
