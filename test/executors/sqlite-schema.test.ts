/**
 * Schema versions of the SQLite files (src/executors/journal/sqlite-schema.ts): files written by
 * the version before schema versions existed (test/fixtures/sqlite-v0, made by that version's own
 * code: make-v0.ts.txt) open with every row intact and get their versions recorded; a file that a
 * newer chainpilot wrote is refused with JOURNAL_SCHEMA_NEWER and left byte for byte as it was.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isChainpilotError } from '../../src/core/index.js';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
import { migrateSchema, SCHEMA_FILE_VERSION } from '../../src/executors/journal/sqlite-schema.js';
import { JOURNAL_SCHEMA } from '../../src/executors/journal/sqlite-statements.js';
import { lamports } from '../../src/core/units.js';
import { attempt as journalAttempt, intent as journalIntent } from './journal-conformance.js';
import { openDeploymentStore } from '../../src/runtime/store/deployment-store.js';
import { tempDir, type TempDir } from '../runtime/helpers.js';

const FIXTURES = new URL('../fixtures/sqlite-v0/', import.meta.url).pathname;
const MARKET = 'embedded simulator seed 1 #fixture';

let tmp: TempDir | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

function copyFixture(name: string): string {
  tmp ??= tempDir('cp-schema-');
  const path = join(tmp.dir, name);
  copyFileSync(join(FIXTURES, name), path);
  return path;
}

function versions(path: string): { file: number; parts: Record<string, number> } {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare<[], { part: string; version: number }>('SELECT part, version FROM chainpilot_schema').all();
    return { file: db.pragma('user_version', { simple: true }) as number, parts: Object.fromEntries(rows.map((r) => [r.part, r.version])) };
  } finally {
    db.close();
  }
}

function setVersion(path: string, sql: string): void {
  const db = new Database(path);
  db.exec(sql);
  db.close();
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isChainpilotError(e) ? e.code : String(e);
  }
  return undefined;
}

describe('schema versions of the SQLite files', () => {
  it('opens a paper store written by the previous version with its book, pending intent and kill switch intact, and records each part at its current version (the paper book at 2: the retention carry table)', async () => {
    const path = copyFixture('paper-store-v0.db');
    const store = openDeploymentStore({ path, deployment: 'book', paper: { market: MARKET, at: 1_700_000_000_100 } });
    try {
      expect(store.paper?.run).toBe(2);
      expect(store.paper?.abandoned.map((i) => i.id)).toEqual(['p-2']);
      const restored = store.paper!.restored();
      expect(restored.fills.map((f) => [f.fill.intentId, f.fill.tokenAmount])).toEqual([['p-1', 2_000_000_000n]]);
      expect(store.risk.load()).toMatchObject({ killReason: 'operator fixture', dayStartEquityLamports: 10_000_000_000n });
    } finally {
      await store.close();
    }
    expect(versions(path)).toEqual({ file: SCHEMA_FILE_VERSION, parts: { store: 1, 'paper-book': 2, journal: 2 } });
  });

  it('opens a live journal written by the previous version and still knows its landed intent', async () => {
    const path = copyFixture('journal-v0.db');
    const journal = openSqliteJournal({ path });
    try {
      const old = await journal.get('l-1');
      expect(old?.state).toBe('LANDED');
      expect(old).not.toHaveProperty('landedSlot'); // written before slots were kept: not known, never 0
      expect((await journal.landed()).map((l) => l.fill?.intentId)).toEqual(['l-1']);
    } finally {
      await journal.close();
    }
    expect(versions(path).parts).toEqual({ journal: 2 });
  });

  it('adds the landing slot to a version-1 journal (NULL for its rows) and keeps the slots written after', async () => {
    tmp = tempDir('cp-schema-');
    const path = join(tmp.dir, 'j1.db');
    const db = new Database(path);
    migrateSchema(db, path, { name: 'journal', migrations: JOURNAL_SCHEMA.migrations.slice(0, 1) });
    db.prepare(
      "INSERT INTO intents (id, intent_json, state, done, spend_lamports, day, reported, created_at, updated_at) VALUES ('v1', '{}', 'DENIED', 1, '0', '2026-01-01', 1, 1, 1)",
    ).run();
    db.close();
    expect(versions(path).parts).toEqual({ journal: 1 });
    const journal = openSqliteJournal({ path });
    try {
      const check = new Database(path, { readonly: true });
      expect(check.prepare<[], { landed_slot: number | null }>("SELECT landed_slot FROM intents WHERE id = 'v1'").get()).toEqual({ landed_slot: null });
      check.close();
      await journal.create(journalIntent('n-1'), { spendLamports: 1n, day: '2026-01-01' }, 2);
      await journal.recordSigned('n-1', journalAttempt('sig-n1'), 3);
      await journal.resolve(
        'n-1',
        { state: 'FAILED_ON_CHAIN', signature: 'sig-n1', code: 'LIVE_FAILED_ON_CHAIN', reason: 'r', feeLamports: lamports(5_000n), landedSlot: 9_007 },
        4,
      );
      expect((await journal.get('n-1'))?.landedSlot).toBe(9_007);
    } finally {
      await journal.close();
    }
    expect(versions(path).parts).toEqual({ journal: 2 });
  });

  it('refuses a file whose part a newer chainpilot migrated, naming the part and both versions, and writes nothing to it', async () => {
    const path = copyFixture('journal-v0.db');
    const first = openSqliteJournal({ path });
    await first.close();
    setVersion(path, "UPDATE chainpilot_schema SET version = 3 WHERE part = 'journal'");
    const before = readFileSync(path);
    let message = '';
    try {
      openSqliteJournal({ path });
    } catch (e) {
      expect(isChainpilotError(e, 'JOURNAL_SCHEMA_NEWER')).toBe(true);
      message = (e as Error).message;
    }
    expect(message).toMatch(/journal version 3, this version knows 2/);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a store whose file format is newer than this code knows, before claiming it', () => {
    const path = copyFixture('paper-store-v0.db');
    setVersion(path, `PRAGMA user_version = ${SCHEMA_FILE_VERSION + 1}`);
    const before = readFileSync(path);
    expect(codeOf(() => openDeploymentStore({ path, deployment: 'book', paper: { market: MARKET, at: 0 } }))).toBe('JOURNAL_SCHEMA_NEWER');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('runs only the migrations a part has not had, in order, once', () => {
    tmp = tempDir('cp-schema-');
    const db = new Database(join(tmp.dir, 'm.db'));
    try {
      const part = { name: 'demo', migrations: ['CREATE TABLE a (x INTEGER)', 'ALTER TABLE a ADD COLUMN y INTEGER'] };
      expect(migrateSchema(db, 'm.db', { name: 'demo', migrations: part.migrations.slice(0, 1) })).toBe(0);
      expect(migrateSchema(db, 'm.db', part)).toBe(1);
      expect(migrateSchema(db, 'm.db', part)).toBe(2);
      expect(db.prepare('SELECT name FROM pragma_table_info(?)').all('a')).toEqual([{ name: 'x' }, { name: 'y' }]);
    } finally {
      db.close();
    }
  });
});
