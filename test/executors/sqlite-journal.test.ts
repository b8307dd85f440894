import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bps, Lamports, RawAmount, UnixMs } from '../../src/core/units.js';
import type { OrderIntent } from '../../src/engine/execution-port.js';
import type { IntentJournal } from '../../src/executors/journal/journal.js';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';

let dir: string;
let path: string;
let j: IntentJournal;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chainpilot-journal-'));
  path = join(dir, 'j.sqlite');
  j = openSqliteJournal({ path });
});
afterEach(async () => {
  await j.close();
  rmSync(dir, { recursive: true, force: true });
});

const intent = (id: string, over: Partial<OrderIntent> = {}): OrderIntent => ({
  id,
  strategyId: 's',
  side: 'buy',
  mint: 'So11111111111111111111111111111111111111112',
  decimals: 6,
  amountIn: 123_456_789_012_345_678n,
  slippageBps: 150 as Bps,
  priorityFeeLamports: 7n as Lamports,
  referencePrice: '0.000000123456789',
  createdAt: 1000 as UnixMs,
  reason: 'why',
  ...over,
});
const spend = { spendLamports: 100n, day: '2026-01-01' };
const attempt = (sig: string) => ({ signature: sig, txBase64: 'AAEC', blockhash: 'hash', expiryBlockHeight: 150, slippageBps: 150 });

describe('SQLite intent journal', () => {
  it('keeps intents, attempts and fills exact across a reopen', async () => {
    await j.create(intent('a'), spend, 1);
    await j.markBuilt('a', 2);
    await j.recordSigned('a', attempt('sig-1'), 3);
    await j.markSent('a', 'sig-1', 4);
    await j.resolve('a', { state: 'EXPIRED', signature: 'sig-1', final: false }, 5);
    await j.markBuilt('a', 6);
    await j.recordSigned('a', attempt('sig-2'), 7);
    const fill = {
      intentId: 'a', side: 'buy' as const, mint: 'm', decimals: 6, solAmount: 99n as Lamports, tokenAmount: 18_446_744_073_709_551_615n as RawAmount,
      feeLamports: 5_000n as Lamports, price: '0.1', filledAt: 9 as UnixMs, signature: 'sig-2',
    };
    await j.resolve('a', { state: 'LANDED', signature: 'sig-2', fill }, 8);
    await j.close();
    j = openSqliteJournal({ path });
    const rec = await j.get('a');
    expect(rec?.intent).toEqual(intent('a'));
    expect(rec?.state).toBe('LANDED');
    expect(rec?.done).toBe(true);
    expect(rec?.attempts.map((a) => [a.signature, a.state])).toEqual([['sig-1', 'EXPIRED'], ['sig-2', 'LANDED']]);
    expect(rec?.fill).toEqual(fill);
    expect((await j.unresolved()).map((r) => r.intent.id)).toEqual(['a']); // landed but not reported yet
    await j.markReported('a', 10);
    expect(await j.unresolved()).toEqual([]);
  });

  it('refuses transitions the state machine does not allow', async () => {
    await j.create(intent('a'), spend, 1);
    await expect(j.recordSigned('a', attempt('s'), 2)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
    await expect(j.markSent('a', 's', 2)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
    await j.markBuilt('a', 2);
    await j.recordSigned('a', attempt('s'), 3);
    await expect(j.deny('a', 'LIVE_X', 'signed intents cannot be denied', 4)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
    await expect(j.resolve('a', { state: 'EXPIRED', signature: 'other', final: true }, 4)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
    await j.resolve('a', { state: 'FAILED_ON_CHAIN', signature: 's', code: 'LIVE_FAILED_ON_CHAIN', reason: 'r', feeLamports: 5000n }, 5);
    await expect(j.markBuilt('a', 6)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
    await expect(j.markBuilt('nope', 6)).rejects.toMatchObject({ code: 'JOURNAL_NOT_FOUND' });
    expect((await j.get('a'))?.feeLamports).toBe(5000n);
  });

  it('never stores the same signature for two attempts', async () => {
    await j.create(intent('a'), spend, 1);
    await j.create(intent('b'), spend, 1);
    await j.markBuilt('a', 2);
    await j.markBuilt('b', 2);
    await j.recordSigned('a', attempt('same'), 3);
    await expect(j.recordSigned('b', attempt('same'), 3)).rejects.toMatchObject({ code: 'JOURNAL_DUPLICATE_SIGNATURE', retry: 'retryable' });
    expect((await j.get('b'))?.state).toBe('BUILT'); // the failed write changed nothing
  });

  it('checks the daily cap and inserts in one step, ignoring denied intents and other days', async () => {
    expect((await j.create(intent('a'), { ...spend, dailyCapLamports: 250n }, 1)).kind).toBe('created');
    expect((await j.create(intent('b'), { ...spend, dailyCapLamports: 250n }, 1)).kind).toBe('created');
    const over = await j.create(intent('c'), { ...spend, dailyCapLamports: 250n }, 1);
    expect(over).toEqual({ kind: 'over_daily_cap', spentTodayLamports: 200n });
    expect(await j.get('c')).toBeUndefined();
    await j.deny('b', 'LIVE_X', 'r', 2);
    expect((await j.create(intent('c'), { ...spend, dailyCapLamports: 250n }, 3)).kind).toBe('created');
    expect((await j.create(intent('d'), { spendLamports: 250n, day: '2026-01-02', dailyCapLamports: 250n }, 3)).kind).toBe('created');
    expect((await j.create(intent('a'), { ...spend, dailyCapLamports: 0n }, 4)).kind).toBe('exists');
    expect(await j.spentOn('2026-01-01')).toBe(200n);
  });

  it('fails loudly with JOURNAL_CORRUPT on a row it cannot decode', async () => {
    await j.create(intent('a'), spend, 1);
    const raw = new Database(path);
    raw.prepare("UPDATE intents SET intent_json = '{\"id\":\"a\",\"amountIn\":\"-5\"}' WHERE id = 'a'").run();
    raw.close();
    await expect(j.get('a')).rejects.toMatchObject({ code: 'JOURNAL_CORRUPT' });
  });
});
