import { fdatasyncSync, fstatSync, mkdtempSync, rmSync, statSync } from 'node:fs';
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

function walDatabase(name: string): Database.Database {
  const db = new Database(join(dir, name));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (v TEXT)');
  return db;
}

describe('journal durability', () => {
  it('in critical mode commits at NORMAL and then fdatasyncs the log holding the commit, only for the writes run through durable()', () => {
    const db = walDatabase('critical.sqlite');
    const wal = join(dir, 'critical.sqlite-wal');
    const syncs: { ino: number; walSize: number }[] = [];
    const d = applyDurability(db, 'critical', (fd) => {
      syncs.push({ ino: fstatSync(fd).ino, walSize: statSync(wal).size });
      fdatasyncSync(fd);
    });
    expect(level(db)).toBe(NORMAL);
    const before = statSync(wal).size;
    expect(d.durable(() => (db.prepare('INSERT INTO t VALUES (?)').run('signed'), level(db)))).toBe(NORMAL);
    // one sync, of the log file itself, after the commit's frames were in it
    expect(syncs).toEqual([{ ino: statSync(wal).ino, walSize: expect.any(Number) as number }]);
    expect(syncs[0]!.walSize).toBeGreaterThan(before);
    expect(() =>
      d.durable(() => {
        throw new Error('duplicate signature');
      }),
    ).toThrow('duplicate signature');
    // the other writes run at NORMAL without a sync; the one that threw is neither synced nor counted
    d.relaxed(() => db.prepare('INSERT INTO t VALUES (?)').run('sent'));
    expect(syncs).toHaveLength(1);
    expect(d.syncedWrites()).toBe(1);
    d.durable(() => db.prepare('INSERT INTO t VALUES (?)').run('signed again')); // the real fdatasync, the default
    expect(d.syncedWrites()).toBe(2);
    db.close();
    d.close();
  });

  it('takes no write after a failed sync: JOURNAL_SYNC_FAILED (fatal), so an attempt it committed is never sent', () => {
    const db = walDatabase('failing.sqlite');
    let fail = true;
    const d = applyDurability(db, 'critical', () => {
      if (fail) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    });
    expect(() => d.durable(() => db.prepare('INSERT INTO t VALUES (?)').run('signed'))).toThrow(
      expect.objectContaining({ code: 'JOURNAL_SYNC_FAILED', retry: 'fatal' }) as Error,
    );
    fail = false; // a later sync that succeeds proves nothing about the failed one's pages
    expect(() => d.durable(() => db.prepare('INSERT INTO t VALUES (?)').run('rebuilt'))).toThrow(
      expect.objectContaining({ code: 'JOURNAL_SYNC_FAILED' }) as Error,
    );
    expect(() => d.relaxed(() => db.prepare('INSERT INTO t VALUES (?)').run('sent'))).toThrow(
      expect.objectContaining({ code: 'JOURNAL_SYNC_FAILED' }) as Error,
    );
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['signed']);
    expect(d.syncedWrites()).toBe(0);
    db.close();
    d.close();
  });

  it('in critical mode on a database without a log (not WAL) commits the durable writes at FULL', () => {
    const db = new Database(join(dir, 'rollback.sqlite')); // journal_mode DELETE, the default
    const d = applyDurability(db, 'critical');
    expect(d.durable(() => level(db))).toBe(FULL);
    expect(level(db)).toBe(NORMAL);
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
