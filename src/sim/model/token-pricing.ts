/** Prices, caps and liquidity of a token, all derived from its pool reserves. */
import type { TokenState } from './model-types.js';

export const LAMPORTS_PER_SOL_NUM = 1e9;

/** Reserves the token prices from now: the curve before graduation, the AMM after. */
export function pricingReserves(t: TokenState): { sol: bigint; token: bigint; poolId: string; market: string } {
  if (t.amm) return { sol: t.amm.sol, token: t.amm.token, poolId: t.amm.poolId, market: 'venue_a-amm' };
  return { sol: t.curve.virtualSol, token: t.curve.virtualToken, poolId: t.curve.poolId, market: t.launchpad };
}

/** SOL per whole token. */
export function priceSol(t: TokenState): number {
  const r = pricingReserves(t);
  if (r.token === 0n) return 0;
  return (Number(r.sol) / Number(r.token)) * 10 ** (t.decimals - 9);
}

export function priceUsd(t: TokenState, solUsd: number): number {
  return priceSol(t) * solUsd;
}

/** Fully diluted market cap in USD. */
export function marketCapUsd(t: TokenState, solUsd: number): number {
  return priceUsd(t, solUsd) * (Number(t.supplyRaw) / 10 ** t.decimals);
}

/** Real SOL in the pool (curve real reserve, or AMM reserve). */
export function realSolLamports(t: TokenState): bigint {
  return t.amm ? t.amm.sol : t.curve.realSol;
}

/** Pool liquidity in USD: both sides valued, so twice the SOL side. */
export function liquidityUsd(t: TokenState, solUsd: number): number {
  return ((2 * Number(realSolLamports(t))) / LAMPORTS_PER_SOL_NUM) * solUsd;
}

/** Curve progress in percent (0..100), exact to 0.01 %. 100 after graduation. */
export function curvePct(t: TokenState): number {
  if (t.status !== 'curve') return 100;
  const c = t.curve;
  const filled = c.initialRealToken - c.realToken;
  return Math.min(100, Number((filled * 10_000n) / c.initialRealToken) / 100);
}
