/**
 * Order intents for tests. A draft names both amounts it may need (`spendLamports` for a buy,
 * `sellRaw` for a sell) so a test can flip `side` with one override; `orderIntent` keeps the one
 * the side uses. Amounts are cast, not checked: tests also build the malformed intents that the
 * executors must refuse (zero, negative).
 */
import type { Bps, Lamports, RawAmount, UnixMs } from '../../src/core/units.js';
import type { BuyIntent, OrderIntent } from '../../src/engine/orders/execution-port.js';

export type IntentDraft = Omit<BuyIntent, 'side' | 'spendLamports'> & {
  readonly side: 'buy' | 'sell';
  readonly spendLamports?: bigint;
  readonly sellRaw?: bigint;
};

/** The buy or sell intent `draft` describes; throws when the side's amount is missing. */
export function orderIntent(draft: IntentDraft): OrderIntent {
  const { side, spendLamports, sellRaw, ...common } = draft;
  if (side === 'buy') {
    if (spendLamports === undefined) throw new Error('a buy intent draft needs spendLamports');
    return { ...common, side, spendLamports: spendLamports as Lamports };
  }
  if (sellRaw === undefined) throw new Error('a sell intent draft needs sellRaw');
  return { ...common, side, sellRaw: sellRaw as RawAmount };
}

/**
 * The buy the inspection tests judge: 1,000,000 lamports of `mint` (6 decimals) at reference 0.001
 * SOL per token, 100 bps of slippage, no priority fee; `over` changes any field.
 */
export function inspectedBuy(mint: string, over: Partial<Omit<BuyIntent, 'side'>> = {}): OrderIntent {
  return {
    id: 'b1',
    strategyId: 's',
    side: 'buy',
    mint,
    decimals: 6,
    spendLamports: 1_000_000n as Lamports,
    slippageBps: 100 as Bps,
    priorityFeeLamports: 0n as Lamports,
    referencePrice: '0.001',
    createdAt: 0 as UnixMs,
    reason: 't',
    ...over,
  };
}
