/**
 * Schema versions of chainpilot's SQLite files. One file may hold several parts (a deployment
 * store holds its owner and risk state, the paper book and the intent journal), so each part keeps
 * its own version in `chainpilot_schema` and brings itself up to date with ordered migrations;
 * `PRAGMA user_version` is the version of that bookkeeping itself. A file written before versions
 * existed reads as version 0 of every part: its first migration is the schema that version wrote
 * (`CREATE TABLE IF NOT EXISTS`), so it opens unchanged. A file that a newer chainpilot wrote
 * (a part's version, or `user_version`, above what this code knows) is refused with
 * JOURNAL_SCHEMA_NEWER before anything is written to it.
 */
import type Database from 'better-sqlite3';
import { ChainpilotError } from '../../core/index.js';

/** Version of the `chainpilot_schema` bookkeeping (the file's `PRAGMA user_version`). */
export const SCHEMA_FILE_VERSION = 1;

/** One part's migrations: `migrations[i]` takes the part from version i to i + 1. */
export interface SchemaPart {
  /** Stable name of the part (`journal`, `store`, `paper-book`). */
  readonly name: string;
  readonly migrations: readonly string[];
}

/** Brings `part` in `db` (the file at `path`, for messages) up to its newest version; returns the version it found. */
export function migrateSchema(db: Database.Database, path: string, part: SchemaPart): number {
  const newer = (what: string, found: number, known: number): ChainpilotError =>
    new ChainpilotError(
      'JOURNAL_SCHEMA_NEWER',
      `${path} was written by a newer chainpilot (${what} version ${found}, this version knows ${known}); upgrade chainpilot, or point store.path at another file`,
      { retry: 'not_retryable', context: { path, part: what, found, known } },
    );
  return db
    .transaction(() => {
      const fileVersion = db.pragma('user_version', { simple: true }) as number;
      if (fileVersion > SCHEMA_FILE_VERSION) throw newer('file', fileVersion, SCHEMA_FILE_VERSION);
      db.exec('CREATE TABLE IF NOT EXISTS chainpilot_schema (part TEXT PRIMARY KEY, version INTEGER NOT NULL)');
      if (fileVersion < SCHEMA_FILE_VERSION) db.pragma(`user_version = ${SCHEMA_FILE_VERSION}`);
      const row = db.prepare<[string], { version: number }>('SELECT version FROM chainpilot_schema WHERE part = ?').get(part.name);
      const found = row?.version ?? 0;
      const known = part.migrations.length;
      if (found > known) throw newer(part.name, found, known);
      for (let v = found; v < known; v++) db.exec(part.migrations[v]!);
      if (found < known) {
        db.prepare('INSERT INTO chainpilot_schema (part, version) VALUES (?, ?) ON CONFLICT(part) DO UPDATE SET version = excluded.version').run(
          part.name,
          known,
        );
      }
      return found;
    })
    .immediate();
}
