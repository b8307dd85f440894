import { describe, expect, it } from 'vitest';
import { isChainpilotError } from '../../src/core/errors.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { lamports, rawAmount, type UnixMs } from '../../src/core/index.js';
import { decodeFill, decodeIntent, encodeFill, encodeIntent, storedIntent } from '../../src/executors/journal/codec.js';

// Rows exactly as the encoder wrote them before intents split into buys and sells (one amountIn
// field): journals on disk, in Redis and queued jobs hold these, and must still open.
const OLD_BUY =
  '{"id":"int_b","strategyId":"s","side":"buy","mint":"So11111111111111111111111111111111111111112","decimals":6,"amountIn":"123456789012345678","slippageBps":150,"priorityFeeLamports":"7","referencePrice":"0.000000123456789","createdAt":1000,"reason":"why"}';
const OLD_SELL =
  '{"id":"int_s","strategyId":"s","side":"sell","mint":"So11111111111111111111111111111111111111112","decimals":6,"amountIn":"5000000","slippageBps":300,"priorityFeeLamports":"10000","createdAt":2000,"reason":"take-profit 2x"}';

describe('intent codec', () => {
  it('opens rows written before the buy/sell split: a buy spends lamports, a sell sells raw tokens', () => {
    const buy = decodeIntent(OLD_BUY);
    const sell = decodeIntent(OLD_SELL);
    expect(buy).toMatchObject({ side: 'buy', spendLamports: 123_456_789_012_345_678n, priorityFeeLamports: 7n });
    expect(sell).toMatchObject({ side: 'sell', sellRaw: 5_000_000n, referencePrice: undefined });
    expect(Object.keys(buy)).not.toContain('sellRaw');
    expect(Object.keys(sell)).not.toContain('spendLamports');
  });

  it('writes the same bytes as before, so a row round-trips unchanged', () => {
    expect(encodeIntent(decodeIntent(OLD_BUY))).toBe(OLD_BUY);
    expect(encodeIntent(decodeIntent(OLD_SELL))).toBe(OLD_SELL);
  });

  it('refuses a row whose amount is not a non-negative integer, naming the field', () => {
    try {
      decodeIntent(OLD_SELL.replace('"5000000"', '"-5"'));
      expect.unreachable();
    } catch (e) {
      expect(isChainpilotError(e, 'JOURNAL_CORRUPT')).toBe(true);
      expect((e as Error).message).toContain('field amountIn');
    }
  });

  it('knows what a written intent decodes to, without decoding it (extra properties dropped)', () => {
    for (const row of [OLD_BUY, OLD_SELL]) {
      const decoded = decodeIntent(row);
      const withExtra: OrderIntent = Object.assign({ ...decoded }, { note: 'not stored' });
      expect(storedIntent(withExtra)).toStrictEqual(decodeIntent(encodeIntent(withExtra)));
    }
  });
});

describe('fill codec', () => {
  it('keeps the rent a fill paid for created accounts through a round trip, and leaves it out when there is none', () => {
    const base = {
      intentId: 'int_1',
      side: 'buy' as const,
      mint: 'M',
      decimals: 6,
      solAmount: lamports(102_039_280n),
      tokenAmount: rawAmount(5n),
      feeLamports: lamports(15_000n),
      price: '1',
      filledAt: 1 as UnixMs,
    };
    expect(decodeFill(encodeFill({ ...base, rentLamports: lamports(2_039_280n) })).rentLamports).toBe(2_039_280n);
    expect(encodeFill(base)).not.toContain('rentLamports');
    expect(decodeFill(encodeFill(base))).toEqual(base);
  });
});
