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
    // the other writes run at NORMAL and are not counted as synced; the one that threw is not either
    expect(d.relaxed(() => level(db))).toBe(NORMAL);
    expect(d.syncedWrites()).toBe(1);
    db.close();
  });

  it('in full mode fsyncs every write and in normal mode none', () => {
    const full = new Database(join(dir, 'full.sqlite'));
    const f = applyDurability(full, 'full');
    expect(f.durable(() => level(full))).toBe(FULL);
    expect(f.relaxed(() => level(full))).toBe(FULL);
    expect(level(full)).toBe(FULL);
    expect(f.syncedWrites()).toBe(2);
    const normal = new Database(join(dir, 'normal.sqlite'));
    const n = applyDurability(normal, 'normal');
    expect(n.durable(() => level(normal))).toBe(NORMAL);
    expect(n.relaxed(() => level(normal))).toBe(NORMAL);
    expect(n.syncedWrites()).toBe(0);
    full.close();
    normal.close();
  });
});
