/**
 * The journal timing decorator on the real SQLite journal: each write is reported once with its
 * outcome, a failed write still throws its own error, reads are not reported, and an observer that
 * throws never fails a write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isChainpilotError } from '../../src/core/index.js';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
import { timedJournal } from '../../src/runtime/live/timed-journal.js';
import { intent } from '../executors/journal-conformance.js';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('timedJournal', () => {
  it('reports each write with its outcome, rethrows a failed write, and leaves reads alone', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-timed-journal-'));
    const seen: { op: string; seconds: number; outcome: string }[] = [];
    const journal = timedJournal(openSqliteJournal({ path: join(dir, 'j.sqlite') }), (op, seconds, outcome) => void seen.push({ op, seconds, outcome }));
    try {
      const created = await journal.create(intent('int_t1'), { spendLamports: 1n, day: '2026-01-01' }, 1);
      expect(created.kind).toBe('created');
      await journal.markBuilt('int_t1', 2);
      const failed = await journal.markSent('int_t1', 'sig-not-signed', 3).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isChainpilotError(failed)).toBe(true); // BUILT → SENT skips SIGNED: the journal's own error
      expect((await journal.get('int_t1'))?.state).toBe('BUILT');
      await journal.unresolved();
      expect(seen.map((s) => [s.op, s.outcome])).toEqual([
        ['create', 'ok'],
        ['markBuilt', 'ok'],
        ['markSent', 'error'],
      ]);
      for (const s of seen) expect(s.seconds).toBeGreaterThanOrEqual(0);
    } finally {
      await journal.close();
    }
  });

  it('writes through an observer that throws, and is the journal itself without an observer', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-timed-journal-'));
    const inner = openSqliteJournal({ path: join(dir, 'j.sqlite') });
    expect(timedJournal(inner, undefined)).toBe(inner);
    const journal = timedJournal(inner, () => {
      throw new Error('observer broke');
    });
    try {
      await journal.create(intent('int_t2'), { spendLamports: 1n, day: '2026-01-01' }, 1);
      await journal.deny('int_t2', 'RISK_TEST', 'denied in a test', 2);
      expect((await journal.get('int_t2'))?.state).toBe('DENIED');
    } finally {
      await journal.close();
    }
  });
});
