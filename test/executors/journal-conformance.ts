/**
 * One conformance suite for every intent journal (as BullMQ tests every backend with one suite):
 * the SQLite journal and the Redis journal run exactly these tests (sqlite-journal.test.ts,
 * redis-journal.test.ts).
 */
import { lamports } from '../../src/core/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bps, Lamports, RawAmount, UnixMs } from '../../src/core/units.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { orderIntent, type IntentDraft } from '../helpers/intents.js';
import type { IntentJournal } from '../../src/executors/journal/journal.js';
import { withSignedAttempt } from '../../src/executors/live/remembered-journal.js';

/** How a backend opens a fresh journal, reopens the same one, and cleans up. */
export interface JournalBackend {
  /** A new, empty journal. */
  open(): Promise<IntentJournal>;
  /** The same store again, through a new handle (after `close()` of the old one). */
  reopen(): Promise<IntentJournal>;
  cleanup(): Promise<void>;
}

export const intent = (id: string, over: Partial<IntentDraft> = {}): OrderIntent =>
  orderIntent({
    id,
    strategyId: 's',
    side: 'buy',
    mint: 'So11111111111111111111111111111111111111112',
    decimals: 6,
    spendLamports: 123_456_789_012_345_678n,
    slippageBps: 150 as Bps,
    priorityFeeLamports: 7n as Lamports,
    referencePrice: '0.000000123456789',
    createdAt: 1000 as UnixMs,
    reason: 'why',
    ...over,
  });
const spend = { spendLamports: 100n, day: '2026-01-01' };
export const attempt = (sig: string) => ({ signature: sig, txBase64: 'AAEC', blockhash: 'hash', expiryBlockHeight: 150, slippageBps: 150 });

/** Registers the conformance tests for `name`; `backend()` is called in beforeEach. */
export function journalConformance(name: string, backend: () => JournalBackend): void {
  describe(`${name} intent journal (conformance)`, () => {
    let b: JournalBackend;
    let j: IntentJournal;
    beforeEach(async () => {
      b = backend();
      j = await b.open();
    });
    afterEach(async () => {
      await j.close();
      await b.cleanup();
    });

    it("returns from create, and withSignedAttempt derives after a signed attempt, exactly the record a read returns (the live path's reads it skips)", async () => {
      const created = await j.create(intent('w'), spend, 1);
      expect(created.kind).toBe('created');
      if (created.kind !== 'created') return;
      expect(created.record).toEqual(await j.get('w'));
      await j.recordSigned('w', attempt('sig-w1'), 2);
      const signed = withSignedAttempt(created.record, attempt('sig-w1'), 2);
      expect(signed).toEqual(await j.get('w'));
      // a rebuild after an expiry: the next attempt, numbered after the first
      await j.markSent('w', 'sig-w1', 3);
      await j.resolve('w', { state: 'EXPIRED', signature: 'sig-w1', final: false }, 4);
      const expired = await j.get('w');
      await j.recordSigned('w', { ...attempt('sig-w2'), expiryBlockHeight: 300, slippageBps: 200 }, 5);
      expect(withSignedAttempt(expired!, { ...attempt('sig-w2'), expiryBlockHeight: 300, slippageBps: 200 }, 5)).toEqual(await j.get('w'));
    });

    it('keeps intents, attempts and fills exact across a reopen', async () => {
      await j.create(intent('a'), spend, 1);
      await j.markBuilt('a', 2);
      await j.recordSigned('a', attempt('sig-1'), 3);
      await j.markSent('a', 'sig-1', 4);
      await j.resolve('a', { state: 'EXPIRED', signature: 'sig-1', final: false }, 5);
      await j.markBuilt('a', 6);
      await j.recordSigned('a', attempt('sig-2'), 7);
      const fill = {
        intentId: 'a',
        side: 'buy' as const,
        mint: 'm',
        decimals: 6,
        solAmount: 99n as Lamports,
        tokenAmount: 18_446_744_073_709_551_615n as RawAmount,
        feeLamports: 5_000n as Lamports,
        price: '0.1',
        filledAt: 9 as UnixMs,
        signature: 'sig-2',
      };
      await j.resolve('a', { state: 'LANDED', signature: 'sig-2', fill }, 8);
      await j.close();
      j = await b.reopen();
      const rec = await j.get('a');
      expect(rec?.intent).toEqual(intent('a'));
      expect(rec?.state).toBe('LANDED');
      expect(rec?.done).toBe(true);
      expect(rec?.attempts.map((a) => [a.n, a.signature, a.state, a.txBase64, a.expiryBlockHeight])).toEqual([
        [0, 'sig-1', 'EXPIRED', 'AAEC', 150],
        [1, 'sig-2', 'LANDED', 'AAEC', 150],
      ]);
      expect(rec?.fill).toEqual(fill);
      expect((await j.landed()).map((r) => r.intent.id)).toEqual(['a']);
      expect((await j.unresolved()).map((r) => r.intent.id)).toEqual(['a']); // landed but not reported yet
      await j.markReported('a', 10);
      expect(await j.unresolved()).toEqual([]);
      expect((await j.get('a'))?.reported).toBe(true);
    });

    it('keeps the slot each landing landed in (LANDED and FAILED_ON_CHAIN) across a reopen, and none for an expiry or an unknown slot', async () => {
      const fill = (id: string, sig: string) => ({
        intentId: id,
        side: 'buy' as const,
        mint: 'm',
        decimals: 6,
        solAmount: 1n as Lamports,
        tokenAmount: 2n as RawAmount,
        feeLamports: 5_000n as Lamports,
        price: '0.5',
        filledAt: 9 as UnixMs,
        signature: sig,
      });
      for (const id of ['l', 'f', 'e', 'u']) {
        await j.create(intent(id), spend, 1);
        await j.recordSigned(id, attempt(`${id}-1`), 2);
      }
      await j.resolve('l', { state: 'LANDED', signature: 'l-1', fill: fill('l', 'l-1'), landedSlot: 312_456_789 }, 3);
      await j.resolve(
        'f',
        { state: 'FAILED_ON_CHAIN', signature: 'f-1', code: 'LIVE_FAILED_ON_CHAIN', reason: 'r', feeLamports: lamports(5_000n), landedSlot: 312_456_790 },
        3,
      );
      await j.resolve('e', { state: 'EXPIRED', signature: 'e-1', final: true }, 3);
      await j.resolve('u', { state: 'LANDED', signature: 'u-1', fill: fill('u', 'u-1') }, 3);
      await j.close();
      j = await b.reopen();
      expect((await j.get('l'))?.landedSlot).toBe(312_456_789);
      expect((await j.get('f'))?.landedSlot).toBe(312_456_790);
      expect(await j.get('e')).not.toHaveProperty('landedSlot');
      expect(await j.get('u')).not.toHaveProperty('landedSlot');
      expect((await j.landed()).map((r) => [r.intent.id, r.landedSlot])).toEqual([
        ['l', 312_456_789],
        ['u', undefined],
      ]);
    });

    it('lists unresolved intents oldest first, and keeps a re-sent SENT intent SENT', async () => {
      await j.create(intent('late'), spend, 5);
      await j.create(intent('early'), spend, 2);
      await j.markBuilt('early', 3);
      await j.recordSigned('early', attempt('e-1'), 4);
      await j.markSent('early', 'e-1', 5);
      await j.markSent('early', 'e-1', 6); // a re-broadcast after a restart
      expect((await j.unresolved()).map((r) => [r.intent.id, r.state])).toEqual([
        ['early', 'SENT'],
        ['late', 'NEW'],
      ]);
      expect(await j.get('nope')).toBeUndefined();
    });

    it('refuses transitions the state machine does not allow', async () => {
      await j.create(intent('a'), spend, 1);
      await expect(j.markSent('a', 's', 2)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
      await expect(j.resolve('a', { state: 'EXPIRED', signature: 's', final: true }, 2)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
      await j.markBuilt('a', 2);
      await j.recordSigned('a', attempt('s'), 3);
      await expect(j.deny('a', 'LIVE_X', 'signed intents cannot be denied', 4)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
      await expect(j.resolve('a', { state: 'EXPIRED', signature: 'other', final: true }, 4)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
      await j.resolve('a', { state: 'FAILED_ON_CHAIN', signature: 's', code: 'LIVE_FAILED_ON_CHAIN', reason: 'r', feeLamports: lamports(5000n) }, 5);
      await expect(j.markBuilt('a', 6)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
      await expect(j.markBuilt('nope', 6)).rejects.toMatchObject({ code: 'JOURNAL_NOT_FOUND' });
      const rec = await j.get('a');
      expect([rec?.state, rec?.done, rec?.code, rec?.reason, rec?.feeLamports]).toEqual(['FAILED_ON_CHAIN', true, 'LIVE_FAILED_ON_CHAIN', 'r', 5000n]);
    });

    it('journals the signed attempt straight from NEW and, for a rebuild, from EXPIRED: one write before each send', async () => {
      await j.create(intent('a'), spend, 1);
      await j.recordSigned('a', attempt('d-1'), 2);
      let rec = await j.get('a');
      expect([rec?.state, rec?.done, rec?.attempts.map((a) => [a.n, a.signature, a.state])]).toEqual(['SIGNED', false, [[0, 'd-1', 'SIGNED']]]);
      await j.markSent('a', 'd-1', 3);
      await j.resolve('a', { state: 'EXPIRED', signature: 'd-1', final: false }, 4);
      await j.recordSigned('a', attempt('d-2'), 5);
      rec = await j.get('a');
      expect([rec?.state, rec?.attempts.map((a) => [a.n, a.signature, a.state])]).toEqual([
        'SIGNED',
        [
          [0, 'd-1', 'EXPIRED'],
          [1, 'd-2', 'SIGNED'],
        ],
      ]);
      await expect(j.recordSigned('a', attempt('d-3'), 6)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' }); // SIGNED → SIGNED
      await j.resolve('a', { state: 'EXPIRED', signature: 'd-2', final: true }, 7);
      await expect(j.recordSigned('a', attempt('d-3'), 8)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' }); // a final expiry is done
      expect((await j.get('a'))?.attempts).toHaveLength(2);
    });

    it('ends a final expiry done and a non-final one open for a rebuild', async () => {
      await j.create(intent('a'), spend, 1);
      await j.markBuilt('a', 2);
      await j.recordSigned('a', attempt('x-1'), 3);
      await j.resolve('a', { state: 'EXPIRED', signature: 'x-1', final: false }, 4);
      expect((await j.get('a'))?.done).toBe(false);
      await j.resolve('a', { state: 'EXPIRED', signature: 'x-1', final: true }, 5);
      expect((await j.get('a'))?.done).toBe(true);
      await expect(j.markBuilt('a', 6)).rejects.toMatchObject({ code: 'JOURNAL_BAD_TRANSITION' });
    });

    it('never stores the same signature for two attempts', async () => {
      await j.create(intent('a'), spend, 1);
      await j.create(intent('b'), spend, 1);
      await j.markBuilt('a', 2);
      await j.recordSigned('a', attempt('same'), 3);
      await expect(j.recordSigned('b', attempt('same'), 3)).rejects.toMatchObject({ code: 'JOURNAL_DUPLICATE_SIGNATURE', retry: 'retryable' });
      const b = await j.get('b');
      expect([b?.state, b?.attempts.length]).toEqual(['NEW', 0]); // the failed write changed nothing
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
      expect(await j.spentOn('2026-01-03')).toBe(0n);
    });

    it('sums spend exactly beyond 2^53 lamports', async () => {
      const big = 9_007_199_254_740_993n; // 2^53 + 1: a double would round it
      await j.create(intent('a'), { spendLamports: big, day: '2026-01-01', dailyCapLamports: big * 2n }, 1);
      expect((await j.create(intent('b'), { spendLamports: big + 1n, day: '2026-01-01', dailyCapLamports: big * 2n }, 1)).kind).toBe('over_daily_cap');
      expect((await j.create(intent('c'), { spendLamports: big, day: '2026-01-01', dailyCapLamports: big * 2n }, 1)).kind).toBe('created');
      expect(await j.spentOn('2026-01-01')).toBe(big * 2n);
    });
  });
}
