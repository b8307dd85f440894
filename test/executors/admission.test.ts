/**
 * One admission for every executor: the pure rules (validation, spend caps, least output) and the
 * journaled refusal both the in-process live executor and the wallet worker write (a DENIED row
 * with the admission's code), on SQLite and on real Redis.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import BaseBigNumber from 'bignumber.js';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { PublicKey } from '@solana/web3.js';
import fc from 'fast-check';
import { base58Text } from '../../src/core/base58.js';
import { admitIntent, dayCapDenial, isAddressText, minOutOf, spendOf } from '../../src/executors/admission.js';
import { admitIntoJournal } from '../../src/executors/journal-admission.js';
import type { IntentJournal } from '../../src/executors/journal/journal.js';
import { openRedisJournal } from '../../src/executors/journal/redis-journal.js';
import { acquireWalletLease } from '../../src/executors/queue/wallet-lease.js';
import { silentLogger } from '../../src/core/logger.js';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
import { orderIntent, type IntentDraft } from '../helpers/intents.js';
import { REDIS_URL, useRedis } from '../helpers/redis.js';
import { createHarness, startHarness } from './support/harness.js';

const redisOk = await useRedis();
const BigNumber = BaseBigNumber.clone({ DECIMAL_PLACES: 200 });
const AT = 1_767_225_600_000 as UnixMs; // 2026-01-01T00:00:00Z
const MINT = 'So11111111111111111111111111111111111111112';
const LIMITS = { maxTradeLamports: 1_000_000_000n, maxDayLamports: 3_000_000_000n };

const intent = (over: Partial<IntentDraft> = {}): OrderIntent =>
  orderIntent({
    id: 'adm-1',
    strategyId: 's',
    side: 'buy',
    mint: MINT,
    decimals: 6,
    spendLamports: 100_000_000n,
    sellRaw: 5_000_000n,
    slippageBps: 300 as Bps,
    priorityFeeLamports: 10_000n as Lamports,
    referencePrice: '0.00003',
    createdAt: AT,
    reason: 'test',
    ...over,
  });

/** The documented formula, written again with bignumber.js decimals, floored, at least 1. */
function expectedMinOut(i: OrderIntent, slippageBps: number): bigint {
  const p = new BigNumber(i.referencePrice!);
  const keep = new BigNumber(10_000 - slippageBps);
  const scale = new BigNumber(10).pow(i.decimals);
  // one division, last: the quotient is then exact to 200 places and flooring sees the true value
  const out =
    i.side === 'buy'
      ? new BigNumber(i.spendLamports.toString()).times(keep).times(scale).div(p.times(1e9).times(10_000))
      : new BigNumber(i.sellRaw.toString()).times(p).times(1e9).times(keep).div(scale.times(10_000));
  const floored = BigInt(out.integerValue(BigNumber.ROUND_FLOOR).toFixed());
  return floored > 0n ? floored : 1n;
}

describe('admission (pure)', () => {
  it("accepts a mint exactly when web3.js's PublicKey does: base58 of 32 bytes, leading zero bytes included", () => {
    const web3 = (t: string): boolean => {
      try {
        new PublicKey(t);
        return true;
      } catch {
        return false;
      }
    };
    // byte strings of 30..34 bytes, often with leading zeros (each a leading '1'), and arbitrary text near the alphabet
    const bytes = fc
      .tuple(fc.integer({ min: 0, max: 3 }), fc.uint8Array({ minLength: 27, maxLength: 34 }))
      .map(([z, b]) => base58Text(Uint8Array.from([...new Uint8Array(z), ...b])));
    const text = fc.string({ unit: fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl+'), minLength: 0, maxLength: 48 });
    fc.assert(
      fc.property(fc.oneof(bytes, text), (t) => {
        expect(isAddressText(t)).toBe(web3(t));
      }),
      { numRuns: 3000 },
    );
    expect(isAddressText('1'.repeat(32))).toBe(true);
    expect(isAddressText('So11111111111111111111111111111111111111112')).toBe(true);
    expect(isAddressText(42)).toBe(false);
  });
  it('derives the least output of a buy in raw tokens and of a sell in lamports from price, decimals and slippage', () => {
    const buy = admitIntent(intent(), LIMITS, AT);
    // 0.1 SOL at 0.00003 SOL per token = 3333.33… tokens; 3 % slippage: 3233.333333 tokens → 3233333333 raw
    expect(buy).toMatchObject({ ok: true, minOut: 3_233_333_333n, minOutBasis: 'reference', spendLamports: 100_015_000n, day: '2026-01-01' });
    const sell = admitIntent(intent({ side: 'sell' }), LIMITS, AT);
    // 5 tokens at 0.00003 SOL = 150000 lamports; 3 % slippage: 145500 lamports
    expect(sell).toMatchObject({ ok: true, minOut: 145_500n, spendLamports: 15_000n });
  });

  it('agrees with the formula computed in decimals for prices with exponents, tiny and huge amounts, every slippage', () => {
    const prices = ['0.00003', '3.1e-8', '1', '12.5', '0.000000000123456789'];
    const decimals = [0, 6, 9, 18];
    for (const referencePrice of prices)
      for (const d of decimals)
        for (const slippageBps of [0, 1, 300, 9_999, 10_000])
          for (const amount of [1n, 999n, 123_456_789n, 10n ** 20n]) {
            const b = intent({ referencePrice, decimals: d, spendLamports: amount, slippageBps: slippageBps as Bps });
            const s = intent({ side: 'sell', referencePrice, decimals: d, sellRaw: amount, slippageBps: slippageBps as Bps });
            expect(minOutOf(b, slippageBps)).toBe(expectedMinOut(b, slippageBps));
            expect(minOutOf(s, slippageBps)).toBe(expectedMinOut(s, slippageBps));
          }
  });

  it('accepts any output of at least 1 without a reference price, unless the limits require one', () => {
    expect(admitIntent(intent({ referencePrice: undefined }), LIMITS, AT)).toMatchObject({ ok: true, minOut: 1n, minOutBasis: 'any' });
    expect(admitIntent(intent({ referencePrice: undefined }), { ...LIMITS, requireReferencePrice: true }, AT)).toMatchObject({
      ok: false,
      code: 'LIVE_NO_REFERENCE_PRICE',
    });
  });

  it('answers a refusal as a value with its code, reason and numbers, never by throwing', () => {
    expect(admitIntent(intent({ spendLamports: 0n }), LIMITS, AT)).toMatchObject({ ok: false, code: 'LIVE_INVALID_INTENT' });
    expect(admitIntent(intent({ referencePrice: '-1' }), LIMITS, AT)).toMatchObject({ ok: false, code: 'LIVE_INVALID_INTENT' });
    expect(admitIntent(intent({ referencePrice: 'abc' }), LIMITS, AT)).toMatchObject({ ok: false, code: 'LIVE_INVALID_INTENT' });
    expect(admitIntent(intent({ spendLamports: 2_000_000_000n }), LIMITS, AT)).toMatchObject({
      ok: false,
      code: 'LIVE_SPEND_CAP_TRADE',
      context: { spendLamports: '2000015000', maxTradeLamports: '1000000000' },
    });
    const day = admitIntent(intent(), LIMITS, AT, 2_950_000_000n);
    expect(day).toEqual(dayCapDenial('2026-01-01', 2_950_000_000n, spendOf(intent()), LIMITS.maxDayLamports));
    expect(day).toMatchObject({ ok: false, code: 'LIVE_SPEND_CAP_DAY', reason: expect.stringContaining('2950000000') as unknown });
    expect(admitIntent(intent(), LIMITS, AT, 2_800_000_000n)).toMatchObject({ ok: true });
  });
});

async function refusalsOf(journal: IntentJournal): Promise<[string, string | undefined, string | undefined][]> {
  const out: [string, string | undefined, string | undefined][] = [];
  const tight = { maxTradeLamports: 150_000_000n, maxDayLamports: 250_000_000n };
  for (const [id, over] of [
    ['a-trade', { spendLamports: 200_000_000n }],
    ['a-ok', {}],
    ['a-ok2', {}],
    ['a-day', {}],
    ['a-bad', { mint: 'not-a-mint' }],
  ] as const) {
    const r = await admitIntoJournal(journal, intent({ id, ...over }), tight, AT);
    const rec = await journal.get(id);
    out.push([r.kind, rec?.state, rec?.code]);
  }
  return out;
}

const EXPECTED = [
  ['denied', 'DENIED', 'LIVE_SPEND_CAP_TRADE'],
  ['admitted', 'NEW', undefined],
  ['admitted', 'NEW', undefined],
  ['denied', 'DENIED', 'LIVE_SPEND_CAP_DAY'],
  ['denied', 'DENIED', 'LIVE_INVALID_INTENT'],
];

describe('journaled admission', () => {
  it('writes every refusal as a DENIED row with the admission code in the SQLite journal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpilot-adm-'));
    const journal = openSqliteJournal({ path: join(dir, 'j.sqlite') });
    try {
      expect(await refusalsOf(journal)).toEqual(EXPECTED);
    } finally {
      await journal.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!redisOk)('writes the same DENIED rows with the same codes in the Redis journal the wallet worker uses', async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const prefix = `adm-${randomBytes(4).toString('hex')}`;
    try {
      const lease = await acquireWalletLease({ redis, prefix, wallet: 'W', ttlMs: 30_000, holder: 'test', log: silentLogger() });
      expect(await refusalsOf(openRedisJournal({ redis, prefix, wallet: 'W', epoch: lease.epoch }))).toEqual(EXPECTED);
      await lease.release();
    } finally {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });

  it('has the in-process live executor journal its refusal as DENIED and report it once as rejected', async () => {
    const h = await createHarness({ settings: { maxTradeLamports: 50_000_000n } });
    try {
      await startHarness(h);
      await h.executor.submit(h.intent(1));
      expect(h.reports).toEqual([expect.objectContaining({ type: 'rejected', intentId: 'int-1', code: 'LIVE_SPEND_CAP_TRADE' })]);
      expect(await h.journal.get('int-1')).toMatchObject({ state: 'DENIED', code: 'LIVE_SPEND_CAP_TRADE', reported: true });
      expect(h.swap.builds).toBe(0);
    } finally {
      await h.close();
    }
  });
});
