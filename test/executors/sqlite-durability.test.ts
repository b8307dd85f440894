import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { applyDurability } from '../../src/executors/journal/sqlite-durability.js';

const dir = mkdtempSync(join(tmpdir(), 'chainpilot-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const level = (db: Database.Database): number => db.pragma('synchronous', { simple: true }) as number;
const FULL = 2;
const NORMAL = 1;

describe('journal durability', () => {
  it('in critical mode fsyncs only the writes run through durable(), and returns to NORMAL even when one throws', () => {
    const db = new Database(join(dir, 'critical.sqlite'));
    db.pragma('journal_mode = WAL');
    const d = applyDurability(db, 'critical');
    expect(level(db)).toBe(NORMAL);
    expect(d.durable(() => level(db))).toBe(FULL);
    expect(level(db)).toBe(NORMAL);
    expect(() =>
      d.durable(() => {
        throw new Error('duplicate signature');
      }),
    ).toThrow('duplicate signature');
    expect(level(db)).toBe(NORMAL);
    db.close();
  });

  it('in full mode fsyncs every write and in normal mode none', () => {
    const full = new Database(join(dir, 'full.sqlite'));
    expect(applyDurability(full, 'full').durable(() => level(full))).toBe(FULL);
    expect(level(full)).toBe(FULL);
    const normal = new Database(join(dir, 'normal.sqlite'));
    expect(applyDurability(normal, 'normal').durable(() => level(normal))).toBe(NORMAL);
    full.close();
    normal.close();
  });
});
