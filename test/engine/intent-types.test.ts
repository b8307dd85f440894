/**
 * The units of an intent are checked by the typechecker (`npm run typecheck` compiles this file):
 * every `@ts-expect-error` below must stay an error, or the typecheck fails.
 */
import { describe, expect, it } from 'vitest';
import { bps, lamports, rawAmount, unixMs, type Lamports, type RawAmount } from '../../src/core/index.js';
import { amountInOf, type BuyIntent, type OrderIntent, type SellIntent } from '../../src/engine/orders/execution-port.js';
import type { RiskLimits } from '../../src/engine/orders/risk-gate.js';

const common = {
  id: 'int_1',
  strategyId: 's',
  mint: 'M',
  decimals: 6,
  slippageBps: bps(100),
  priorityFeeLamports: lamports(5_000n),
  referencePrice: undefined,
  createdAt: unixMs(0),
  reason: 'types',
};

describe('intent units in the types', () => {
  it('lets a buy carry only lamports and a sell only raw tokens', () => {
    const buy: BuyIntent = { ...common, side: 'buy', spendLamports: lamports(1_000n) };
    const sell: SellIntent = { ...common, side: 'sell', sellRaw: rawAmount(2_000n) };
    // @ts-expect-error a buy has no raw amount to sell
    const buyWithRaw: BuyIntent = { ...common, side: 'buy', sellRaw: rawAmount(1n) };
    // @ts-expect-error the old side-dependent amountIn is gone
    const oldShape: OrderIntent = { ...common, side: 'buy', amountIn: 1n };
    // @ts-expect-error raw tokens are not lamports
    const rawAsLamports: BuyIntent = { ...common, side: 'buy', spendLamports: rawAmount(1n) };
    // @ts-expect-error a bare bigint is not lamports: brand it with lamports() at the boundary
    const bare: Lamports = 5n;
    // @ts-expect-error nor is it a raw amount
    const bareRaw: RawAmount = 5n;
    // @ts-expect-error risk limits are lamports, parsed once from the config
    const limits: RiskLimits = { maxTradeLamports: 5n };
    const amounts = ([buy, sell] as OrderIntent[]).map((i) => (i.side === 'buy' ? i.spendLamports : i.sellRaw));
    expect(amounts).toEqual([1_000n, 2_000n]);
    expect([buy, sell].map(amountInOf)).toEqual([1_000n, 2_000n]);
    expect([buyWithRaw, oldShape, rawAsLamports, bare, bareRaw, limits]).toHaveLength(6);
  });
});
