import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
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
      for (let i = 0; i < 16; i++) {
        await j.resolve(`i${i}`, { state: 'EXPIRED', signature: `sig-${i}`, final: true }, 200);
        await j.markReported(`i${i}`, 200);
      }
      expect(size()).toBeGreaterThan(before);
    } finally {
      await j.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
