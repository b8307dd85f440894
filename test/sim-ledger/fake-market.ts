/**
 * A small hand-written SimMarketPort for the ledger tests: constant-product pools with exact bigint
 * math, a way to move a pool as other traders would, and graduation to a new pool.
 */
import { Keypair } from '@solana/web3.js';
import type { LandedSwap, SimMarketPort, SimPool, SimQuote, SimTokenInfo } from '../../src/sim/market-port.js';
import { seededRandom, unixMs } from '../../src/core/index.js';

export interface FakeMarket extends SimMarketPort {
  readonly landed: LandedSwap[];
  /** Launches a token on a curve with these reserves; returns its mint. */
  launch(solReserveLamports: bigint, tokenReserveRaw: bigint, decimals?: number): string;
  /** Trades in the model only (another trader), moving the price. */
  move(mint: string, side: 'buy' | 'sell', amountIn: bigint): void;
  /** Moves the token to an AMM pool with a new pool id and the same reserves. */
  graduate(mint: string): void;
  setTradable(mint: string, tradable: boolean): void;
}

export function constantProductOut(pool: SimPool, side: 'buy' | 'sell', amountIn: bigint): bigint {
  const inAfterFee = (amountIn * BigInt(10_000 - pool.feeBps)) / 10_000n;
  const [rIn, rOut] = side === 'buy' ? [pool.solReserveLamports, pool.tokenReserveRaw] : [pool.tokenReserveRaw, pool.solReserveLamports];
  return (rOut * inAfterFee) / (rIn + inAfterFee);
}

export function fakeMarket(seed = 'fake-market'): FakeMarket {
  const random = seededRandom(seed);
  const pools = new Map<string, SimPool>();
  const tokens: SimTokenInfo[] = [];
  const listeners = new Set<(t: SimTokenInfo) => void>();
  const landed: LandedSwap[] = [];
  let n = 0;

  const apply = (mint: string, side: 'buy' | 'sell', sol: bigint, token: bigint): void => {
    const p = pools.get(mint);
    if (!p) throw new Error(`unknown mint ${mint}`);
    pools.set(mint, {
      ...p,
      solReserveLamports: side === 'buy' ? p.solReserveLamports + sol : p.solReserveLamports - sol,
      tokenReserveRaw: side === 'buy' ? p.tokenReserveRaw - token : p.tokenReserveRaw + token,
    });
  };

  const market: FakeMarket = {
    landed,
    pool: (mint) => pools.get(mint),
    quote(mint, side, amountIn): SimQuote | undefined {
      const pool = pools.get(mint);
      if (!pool || !pool.tradable || amountIn <= 0n) return undefined;
      return { pool, amountIn, amountOut: constantProductOut(pool, side, amountIn) };
    },
    applyLandedSwap(swap) {
      landed.push(swap);
      apply(swap.mint, swap.side, swap.solLamports, swap.tokenRaw);
    },
    tokens: () => tokens,
    onTokenLaunched(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    launch(sol, token, decimals = 6) {
      const mint = Keypair.fromSeed(random.bytes(32)).publicKey.toBase58();
      pools.set(mint, {
        mint,
        poolId: `curve-${++n}`,
        market: 'venue_a',
        kind: 'curve',
        decimals,
        solReserveLamports: sol,
        tokenReserveRaw: token,
        feeBps: 100,
        tradable: true,
      });
      const info = { mint, decimals, symbol: `TK${n}`, createdAt: unixMs(0) };
      tokens.push(info);
      for (const l of listeners) l(info);
      return mint;
    },
    move(mint, side, amountIn) {
      const p = pools.get(mint);
      if (!p) throw new Error(`unknown mint ${mint}`);
      const out = constantProductOut(p, side, amountIn);
      if (side === 'buy') apply(mint, side, amountIn, out);
      else apply(mint, side, out, amountIn);
    },
    graduate(mint) {
      const p = pools.get(mint);
      if (!p) throw new Error(`unknown mint ${mint}`);
      pools.set(mint, { ...p, poolId: `amm-${++n}`, market: 'venue_a-amm', kind: 'amm', feeBps: 25 });
    },
    setTradable(mint, tradable) {
      const p = pools.get(mint);
      if (p) pools.set(mint, { ...p, tradable });
    },
  };
  return market;
}
