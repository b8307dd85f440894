import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteJournal, WAL_SIZE_LIMIT_BYTES, type SqliteIntentJournal } from '../../src/executors/journal/sqlite-journal.js';
import { attempt, intent, journalConformance } from './journal-conformance.js';

journalConformance('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainpilot-journal-'));
  const path = join(dir, 'j.sqlite');
  return {
    open: async () => openSqliteJournal({ path }),
    reopen: async () => openSqliteJournal({ path }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('SQLite intent journal', () => {
  it('fails loudly with JOURNAL_CORRUPT on a row it cannot decode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpilot-journal-'));
    const path = join(dir, 'j.sqlite');
    const j = openSqliteJournal({ path });
    try {
      await j.create(intent('a'), { spendLamports: 100n, day: '2026-01-01' }, 1);
      const raw = new Database(path);
      raw.prepare('UPDATE intents SET intent_json = \'{"id":"a","amountIn":"-5"}\' WHERE id = \'a\'').run();
      raw.close();
      await expect(j.get('a')).rejects.toMatchObject({ code: 'JOURNAL_CORRUPT' });
    } finally {
      await j.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rebuilds the day totals from the intents on open: a journal from before them, or with stale ones, keeps the daily cap exact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpilot-journal-'));
    const path = join(dir, 'j.sqlite');
    try {
      let j = openSqliteJournal({ path });
      await j.create(intent('a'), { spendLamports: 100n, day: '2026-01-01' }, 1);
      await j.create(intent('b'), { spendLamports: 50n, day: '2026-01-01' }, 2);
      await j.create(intent('c'), { spendLamports: 70n, day: '2026-01-01' }, 3);
      await j.deny('c', 'LIVE_X', 'denied intents spend nothing', 4);
      await j.create(intent('d'), { spendLamports: 9n, day: '2026-01-02' }, 5);
      expect(await j.spentOn('2026-01-01')).toBe(150n);
      await j.close();
      // An earlier version had no totals table; another writer may have left it stale.
      const raw = new Database(path);
      raw.prepare("UPDATE day_spend SET spent_lamports = '1' WHERE day = '2026-01-01'").run();
      raw.prepare("DELETE FROM day_spend WHERE day = '2026-01-02'").run();
      raw.close();
      j = openSqliteJournal({ path });
      expect(await j.spentOn('2026-01-01')).toBe(150n);
      expect(await j.spentOn('2026-01-02')).toBe(9n);
      const over = await j.create(intent('e'), { spendLamports: 51n, day: '2026-01-01', dailyCapLamports: 200n }, 6);
      expect(over).toEqual({ kind: 'over_daily_cap', spentTodayLamports: 150n });
      await j.close();
      const dropped = new Database(path);
      dropped.prepare('DROP TABLE day_spend').run();
      dropped.close();
      j = openSqliteJournal({ path });
      expect(await j.spentOn('2026-01-01')).toBe(150n);
      await j.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('copies its log into the database file after reported outcomes, never inside the writes between build and first send', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpilot-journal-'));
    const path = join(dir, 'j.sqlite');
    const j = openSqliteJournal({ path });
    try {
      const size = (): number => statSync(path).size;
      const before = size();
      for (let i = 0; i < 150; i++) {
        await j.create(intent(`i${i}`), { spendLamports: 1n, day: '2026-01-01' }, i);
        await j.markBuilt(`i${i}`, i);
        await j.recordSigned(`i${i}`, attempt(`sig-${i}`), i);
      }
      expect(size()).toBe(before); // hundreds of log pages of new rows, all still in the log
      for (let i = 0; i < 150; i++) await j.resolve(`i${i}`, { state: 'EXPIRED', signature: `sig-${i}`, final: true }, 200);
      for (let i = 0; i < 15; i++) await j.markReported(`i${i}`, 200);
      expect(size()).toBe(before);
      await j.markReported('i15', 200); // the 16th reported outcome
      expect(size()).toBeGreaterThan(before);
    } finally {
      await j.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Runs `run` on a fresh journal, with the size of its database file (it grows when a checkpoint copies the log in). */
  async function withJournal(run: (j: SqliteIntentJournal, size: () => number) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'chainpilot-journal-'));
    const path = join(dir, 'j.sqlite');
    const j = openSqliteJournal({ path });
    try {
      await run(j, () => statSync(path).size);
    } finally {
      await j.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  /** One intent from its decision to its reported outcome, sent once. */
  async function lifecycle(j: SqliteIntentJournal, id: string, at: number): Promise<void> {
    await j.create(intent(id), { spendLamports: 1n, day: '2026-01-01' }, at);
    await j.recordSigned(id, attempt(`sig-${id}`), at);
    await j.markSent(id, `sig-${id}`, at);
    await j.resolve(id, { state: 'EXPIRED', signature: `sig-${id}`, final: true }, at);
    await j.markReported(id, at);
  }

  it('holds a due checkpoint while an intent is between its decision and its first send, and runs it once that intent is sent', async () => {
    await withJournal(async (j, size) => {
      const before = size();
      await j.create(intent('waiting'), { spendLamports: 1n, day: '2026-01-01' }, 0); // decided, building
      for (let i = 0; i < 20; i++) await lifecycle(j, `i${i}`, i + 1); // 20 reported outcomes: one checkpoint due
      expect(size()).toBe(before);
      await j.recordSigned('waiting', attempt('sig-waiting'), 30);
      await lifecycle(j, 'i20', 31); // signed, not yet sent: still on its way
      expect(size()).toBe(before);
      await j.markSent('waiting', 'sig-waiting', 32);
      await lifecycle(j, 'i21', 33); // the next reported outcome finds none on its way
      expect(size()).toBeGreaterThan(before);
    });
  });

  it('counts a rebuild after an expiry as on its way to a send, and a denial or a final outcome as off it', async () => {
    await withJournal(async (j, size) => {
      const before = size();
      await j.create(intent('rebuilt'), { spendLamports: 1n, day: '2026-01-01' }, 0);
      await j.recordSigned('rebuilt', attempt('r-1'), 1);
      await j.resolve('rebuilt', { state: 'EXPIRED', signature: 'r-1', final: false }, 2); // will be signed again
      await j.create(intent('denied'), { spendLamports: 1n, day: '2026-01-01' }, 3);
      for (let i = 0; i < 20; i++) await lifecycle(j, `i${i}`, i + 4);
      expect(size()).toBe(before);
      await j.deny('denied', 'LIVE_INVALID_INTENT', 't', 30);
      await j.recordSigned('rebuilt', attempt('r-2'), 31);
      await j.resolve('rebuilt', { state: 'EXPIRED', signature: 'r-2', final: true }, 32); // a final outcome, never sent
      await lifecycle(j, 'i20', 33);
      expect(size()).toBeGreaterThan(before);
    });
  });

  it('runs a held checkpoint anyway after 64 reported outcomes: overlapping intents cannot hold the log forever', async () => {
    await withJournal(async (j, size) => {
      const before = size();
      await j.create(intent('stuck'), { spendLamports: 1n, day: '2026-01-01' }, 0);
      for (let i = 0; i < 63; i++) await lifecycle(j, `i${i}`, i + 1);
      expect(size()).toBe(before);
      await lifecycle(j, 'i63', 64);
      expect(size()).toBeGreaterThan(before);
    });
  });

  it('cuts a log that a burst grew past WAL_SIZE_LIMIT_BYTES back to that size when it restarts after a checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpilot-journal-'));
    const path = join(dir, 'j.sqlite');
    const j = openSqliteJournal({ path });
    try {
      const big = { ...attempt(''), txBase64: 'A'.repeat(256 * 1024) }; // a quarter MiB per attempt: the log passes the limit
      const n = Math.ceil((1.5 * WAL_SIZE_LIMIT_BYTES) / (256 * 1024));
      for (let i = 0; i < n; i++) {
        await j.create(intent(`i${i}`), { spendLamports: 1n, day: '2026-01-01' }, i);
        await j.recordSigned(`i${i}`, { ...big, signature: `sig-${i}` }, i);
      }
      expect(statSync(`${path}-wal`).size).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);
      for (let i = 0; i < n; i++) await j.resolve(`i${i}`, { state: 'EXPIRED', signature: `sig-${i}`, final: true }, n);
      for (let i = 0; i < 16; i++) await j.markReported(`i${i}`, n); // the checkpoint
      await j.markReported(`i16`, n); // the next write restarts the log
      expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    } finally {
      await j.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
