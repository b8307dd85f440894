/** How a download turns a token's REST history into stream frames: milestones, liquidity, graduation and holder counts (from the swaps' wallets). */
import { describe, expect, it } from 'vitest';
import { rebuildFrames, SOL_MINT, type TokenInfo } from '../../src/research/download/rebuild-frames.js';

const MINT = 'MintAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const info = (extra: Partial<TokenInfo> = {}): TokenInfo => ({
  mint: MINT,
  token: { name: 'Alpha', symbol: 'ALP', mint: MINT },
  pools: [{ poolId: 'AMM', market: 'venue_a-amm' }],
  decimals: 6,
  ...extra,
});
/** A swap row as the history sends it: `tokens` whole tokens for `sol` SOL on the curve pool. */
const swap = (time: number, type: 'buy' | 'sell', tokens: bigint, sol: string, priceSol = 0.00000003): Record<string, unknown> => ({
  tx: `tx${time}`,
  type,
  wallet: 'W1',
  pool: 'CURVE',
  program: 'venue_a',
  amount: String(tokens),
  amountRaw: String(tokens * 1_000_000n),
  solAmount: sol,
  priceUsd: priceSol * 150,
  priceSol,
  volume: Number(sol) * 150,
  time,
});

describe('rebuilding frames from REST history', () => {
  it('fires each whole curve percent once, the first time the curve pool has sold that share, counting rows before the window', () => {
    const pct = 7_931_000n; // 1 % of 793.1 M tokens
    const rows = [swap(1_000, 'buy', 2n * pct, '1'), swap(2_000, 'sell', pct, '0.5'), swap(3_000, 'buy', pct * 2n + pct / 2n, '1.3')];
    const { frames } = rebuildFrames(info(), rows, 1_500, 10_000);
    const curve = frames.filter((f) => f.room.startsWith('venue_a:curve:')).map((f) => [f.t, f.room, (f.data as { curvePercentage: number }).curvePercentage]);
    // 2 % before the window (no frame), back to 1 %, then 3.5 %: only 3 is new
    expect(curve).toEqual([[3_000, 'venue_a:curve:3', 3.5]]);
    expect(frames.filter((f) => f.room === 'launchpad:curve:3')).toHaveLength(1);
  });

  it("values a pool's liquidity from its SOL reserve summed over its rows, liquidity rows included", () => {
    const add = {
      tx: 'l1',
      type: 'add_liquidity',
      pool: 'CURVE',
      time: 500,
      tokens: [{ address: SOL_MINT, amount: '2', amountRaw: '2000000000', decimals: 9 }],
    };
    const { frames } = rebuildFrames(info(), [add, swap(1_000, 'buy', 10n, '1.5'), swap(2_000, 'sell', 5n, '0.5')], 0, 10_000);
    const prices = frames.filter((f) => f.room === `price:token:${MINT}`).map((f) => f.data as { liquidity: number; price: number; price_quote: number });
    // 2 SOL added, +1.5, −0.5: 3.5 then 3 SOL; both sides valued at 150 USD a SOL
    expect(prices.map((p) => Math.round(p.liquidity * 1e6) / 1e6)).toEqual([1_050, 900]);
    expect(prices[0]!.price_quote).toBe(0.00000003);
    expect(frames.filter((f) => f.room.startsWith('liquidity:')).map((f) => f.room)).toEqual([
      `liquidity:${MINT}`,
      `liquidity:${MINT}:CURVE`,
      'liquidity:pool:CURVE',
    ]);
  });

  it('places the graduation after the rows of its time, and the rebuilt safety rooms at each swap', () => {
    const { frames } = rebuildFrames(info({ graduationTime: 2_000, graduationTx: 'gtx' }), [swap(2_000, 'buy', 1n, '0.1')], 0, 10_000);
    expect(frames.map((f) => [f.t, f.room.split(':')[0]])).toEqual([
      [2_000, 'transaction'],
      [2_000, 'transaction'],
      [2_000, 'price'],
      // the safety rooms a swap's wallets rebuild (rebuild-safety.ts), at the swap's time
      [2_000, 'holders'],
      [2_000, 'bundlers'],
      [2_000, 'top10'],
      [2_000, 'graduated'],
    ]);
    expect(frames[3]!.data).toEqual({ token: MINT, total: 1, previous: null, timestamp: 2_000 });
    expect(frames[6]!.data).toMatchObject({ pools: [{ poolId: 'AMM' }], graduationTx: 'gtx', graduationTime: 2_000 });
  });

  it('counts the holders (wallets with a positive balance) at every swap, the swaps before the window included', () => {
    const by = (wallet: string, row: Record<string, unknown>): Record<string, unknown> => ({ ...row, wallet });
    const rows = [
      by('W1', swap(1_000, 'buy', 10n, '0.1')),
      by('W2', swap(2_000, 'buy', 5n, '0.1')),
      by('W3', swap(3_000, 'buy', 5n, '0.1')),
      by('W1', swap(4_000, 'sell', 10n, '0.1')),
      by('W2', swap(5_000, 'sell', 2n, '0.1')),
      by('W4', swap(6_000, 'sell', 1n, '0.1')), // sold more than its swaps bought (a transfer in): no holder
      by('W4', swap(7_000, 'buy', 1n, '0.1')), // its balance was 0, not −1: a holder again
    ];
    const { frames } = rebuildFrames(info(), rows, 2_500, 10_000);
    const holders = frames
      .filter((f) => f.room === `holders:${MINT}`)
      .map((f) => [f.t, (f.data as { total: number; previous: number | null }).total, (f.data as { previous: number | null }).previous]);
    // 2 holders before the window; every swap in it carries the count, even an unchanged one
    expect(holders).toEqual([
      [3_000, 3, 2],
      [4_000, 2, 3],
      [5_000, 2, 2],
      [6_000, 2, 2],
      [7_000, 3, 2],
    ]);
  });
});
