import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
import { intent, journalConformance } from './journal-conformance.js';

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
});
