/** Test fixtures: liquidity events shaped per the spec. */
import type { LiquidityEvent } from '../../../src/client/datastream/index.js';

let n = 0;

/** A valid liquidity event; `over` replaces fields. Each call without `tx` gets a fresh signature. */
export function liquidityEvent(over: Partial<Record<keyof LiquidityEvent, unknown>> & Record<string, unknown> = {}): LiquidityEvent {
  n++;
  return {
    tx: `sig${n}`,
    type: 'add_liquidity',
    program: 'venue_a-amm',
    programId: 'Prog1111',
    instruction: 'deposit',
    pool: 'PoolA',
    wallet: 'WalletA',
    time: 1_700_000_000_000 + n,
    slot: 1000 + n,
    amountBasis: 'transfer',
    tokens: [
      { address: 'MintA', amount: '1.5', amountRaw: '1500000', decimals: 6 },
      { address: 'So11111111111111111111111111111111111111112', amount: '0.25', amountRaw: '250000000', decimals: 9 },
    ],
    ...over,
  } as LiquidityEvent;
}
