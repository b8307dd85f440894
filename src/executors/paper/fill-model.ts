/**
 * The paper fill model, exact in integers. A market order fills against constant-product reserves:
 * the pool's observed reserves when the feed reports them, otherwise virtual reserves at the
 * observed price whose SOL side is the depth estimated from the pool's liquidity (or an assumed
 * depth when the feed reports no liquidity). Then the pool fee, an extra adverse slippage, the network base fee
 * and the priority fee apply. A fill fails like a swap would on chain (nothing trades, the fees are
 * paid) when the pool's price moved beyond the intent's slippage from its reference price, or when
 * the fee and impact alone are beyond it (live refuses such a quote before signing).
 */
import { addLamports, Decimal, decimal, lamports, rawAmount, ZERO_LAMPORTS, type Lamports, type RawAmount } from '../../core/index.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import type { MarketObservation } from '../../engine/market/market-view.js';
import { priceOf } from '../../engine/market/portfolio.js';
import { compareScaled, plainDecimalParts, pow10, quotientFloor } from '../../core/exact-ratio.js';
import { minOutOf } from '../admission.js';

export interface FillModelOptions {
  /**
   * Adverse slippage applied on top of price impact (other traders, MEV), in bps. Below 0 (a
   * calibrated correction) it gives back at most the fill's pool fee: never a fill better than the pool's price.
   */
  readonly extraSlippageBps: number;
  /** Pool fee when the feed does not report one, in bps. */
  readonly defaultPoolFeeBps: number;
  /** Network base fee per transaction. */
  readonly networkFeeLamports: Lamports;
  /** Priority fee actually paid: the intent's budget capped at this. */
  readonly priorityFeeCapLamports: Lamports;
  /** SOL side of the virtual pool used when reserves are unknown. */
  readonly assumedDepthLamports: Lamports;
  /** Fee paid per transaction as live pays it (calibrated); replaces network fee + priority fee when set. */
  readonly feeLamports?: Lamports;
  /**
   * A token still on its bonding curve, with the curve's launch reserves observed, trades against the
   * curve's virtual reserves at the observed price (their product is the launch's) instead of the
   * liquidity depth, which counts only the curve's real SOL. On with a calibrated model (`paper.model`).
   */
  readonly curveReserves?: boolean;
  /** The extra slippage of a fill in a graduated pool, when calibrated apart (`paper.model.graduatedExtraSlippageBps`); else `extraSlippageBps`. */
  readonly graduatedExtraSlippageBps?: number;
}

/** Pool reserves the model trades against (observed, virtual, or as our own earlier fill left them). */
export interface Reserves {
  readonly sol: bigint;
  readonly token: bigint;
}

export const DEFAULT_FILL_MODEL: FillModelOptions = {
  extraSlippageBps: 50,
  defaultPoolFeeBps: 100,
  networkFeeLamports: lamports(5_000n),
  priorityFeeCapLamports: lamports(1_000_000n),
  assumedDepthLamports: lamports(100_000_000_000n),
};

export type ModelledFill =
  | {
      readonly ok: true;
      readonly solAmount: Lamports;
      readonly tokenAmount: RawAmount;
      readonly feeLamports: Lamports;
      readonly price: string;
      readonly pool: string | undefined;
      /** The reserves after this trade (the pool keeps its fee): what our next fill meets until a new tick. */
      readonly reservesAfter: Reserves;
    }
  | { readonly ok: false; readonly code: 'PAPER_NO_PRICE' | 'PAPER_SLIPPAGE_EXCEEDED'; readonly reason: string; readonly feeLamports: Lamports };

/** The pool's reserves when the feed reported both. */
function observedReserves(obs: MarketObservation): Reserves | undefined {
  const s = obs.solReserveLamports;
  const t = obs.tokenReserveRaw;
  return s !== undefined && t !== undefined && s > 0n && t > 0n ? { sol: s, token: t } : undefined;
}

/** The integer square root of `n` (floor), by Newton's method from above. */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((n.toString(2).length >> 1) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** Reserves the model trades against: observed, or virtual at the observed price. */
export function reservesFor(obs: MarketObservation, decimals: number, opts: FillModelOptions): { sol: bigint; token: bigint } | undefined {
  const observed = observedReserves(obs);
  if (observed) return observed;
  if (obs.price === undefined) return undefined;
  let sol = obs.depthLamports ?? opts.assumedDepthLamports;
  // token raw = lamports / price (SOL per whole token) scaled by decimals: in bigints for a plain
  // decimal price (every price the engine writes), as bignumber.js would round it
  const parts = plainDecimalParts(obs.price);
  if (parts !== undefined) {
    if (parts.digits === 0n) return undefined;
    const k = opts.curveReserves && !obs.graduated && obs.curveSolLamports !== undefined ? obs.curveSolLamports * (obs.curveTokenRaw ?? 0n) : 0n;
    // on the curve: sol × token = k and sol / token = the price in lamports per raw unit, so sol = √(k × price)
    if (k > 0n) sol = isqrt((k * parts.digits * 1_000_000_000n) / pow10(parts.scale + decimals)) || sol;
    const token = quotientFloor(sol * pow10(parts.scale), parts.digits, decimals - 9);
    return token > 0n ? { sol, token } : undefined;
  }
  const price = decimal(obs.price, 'price');
  if (!price.gt(0)) return undefined;
  const token = BigInt(
    new Decimal(sol.toString())
      .div(price)
      .shiftedBy(decimals - 9)
      .integerValue(Decimal.ROUND_DOWN)
      .toFixed(0),
  );
  return token > 0n ? { sol, token } : undefined;
}

/** Relative distance past which two products of doubles (each within a few 2^-53 of its exact value) are ordered exactly. */
const DOUBLE_MARGIN = 1e-12;

/** Digits with at most one inner point (what `plainDecimalParts` accepts), without building its bigint. */
function isPlainDecimal(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 300) return false; // a longer one leaves the doubles' range of exact ordering: the bigints decide
  let dot = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 && !dot && i > 0 && i < n - 1) dot = true;
    else if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Whether a fill at `fill` is beyond `slippageBps` of `ref`: above ref × (1 + bps/10,000) for a
 * buy, below ref × (1 − bps/10,000) for a sell. Exact: cross-multiplied in bigints for plain
 * decimals, else in bignumber.js.
 */
export function isWorse(side: 'buy' | 'sell', fill: string, ref: string, slippageBps: number): boolean {
  if (Number.isSafeInteger(slippageBps) && isPlainDecimal(fill) && isPlainDecimal(ref)) {
    // on doubles first: `Number` of a plain decimal is within 2^-53 of it, and so is each product, so
    // when the two sides are farther apart than DOUBLE_MARGIN of their size the doubles order them exactly
    const a = Number(fill) * 10_000;
    const b = Number(ref) * (side === 'buy' ? 10_000 + slippageBps : 10_000 - slippageBps);
    const diff = a - b;
    if (Math.abs(diff) > (Math.abs(a) + Math.abs(b)) * DOUBLE_MARGIN) return side === 'buy' ? diff > 0 : diff < 0;
  }
  const f = plainDecimalParts(fill);
  const r = plainDecimalParts(ref);
  if (f !== undefined && r !== undefined && Number.isSafeInteger(slippageBps)) {
    const bps = BigInt(slippageBps);
    return side === 'buy' ? compareScaled(f, 10_000n, r, 10_000n + bps) > 0 : compareScaled(f, 10_000n, r, 10_000n - bps) < 0;
  }
  const refD = decimal(ref, 'referencePrice');
  const tol = new Decimal(slippageBps).div(10_000);
  const fillD = decimal(fill);
  return side === 'buy' ? fillD.gt(refD.times(tol.plus(1))) : fillD.lt(refD.times(new Decimal(1).minus(tol)));
}

/**
 * Models the fill of `intent` against `obs` (undefined: nothing observed), or against `moved`
 * reserves (our own earlier fill in the same pool since the last observed tick).
 */
export function modelFill(
  intent: OrderIntent,
  obs: MarketObservation | undefined,
  opts: FillModelOptions = DEFAULT_FILL_MODEL,
  moved?: Reserves,
  quotedOut?: bigint,
): ModelledFill {
  const priority = intent.priorityFeeLamports < opts.priorityFeeCapLamports ? intent.priorityFeeLamports : opts.priorityFeeCapLamports;
  const fee = opts.feeLamports ?? addLamports(opts.networkFeeLamports, priority);
  const reserves = obs ? (moved ?? reservesFor(obs, intent.decimals, opts)) : undefined;
  if (!obs || !reserves) {
    return {
      ok: false,
      code: 'PAPER_NO_PRICE',
      reason: `no observed price for ${intent.mint}: subscribe to its price room before trading it`,
      feeLamports: ZERO_LAMPORTS,
    };
  }
  const poolFee = BigInt(obs.poolFeeBps ?? opts.defaultPoolFeeBps);
  // A negative extra slippage (a calibrated correction) gives back at most the pool fee charged on
  // this fill: (1 + fee)(1 − fee) < 1, so a paper fill never beats the pool's own price before fee and
  // impact, whatever fee the pool reports (docs/backtesting.md, "The paper fill model").
  const extra = BigInt(obs.graduated && opts.graduatedExtraSlippageBps !== undefined ? opts.graduatedExtraSlippageBps : opts.extraSlippageBps);
  const extraBps = extra < -poolFee ? -poolFee : extra;
  const keep = 10_000n - extraBps;
  let solAmount: bigint;
  let tokenAmount: bigint;
  let reservesAfter: Reserves;
  if (intent.side === 'buy') {
    const inAfterFee = (intent.spendLamports * (10_000n - poolFee)) / 10_000n;
    const out = (reserves.token * inAfterFee) / (reserves.sol + inAfterFee);
    solAmount = intent.spendLamports;
    tokenAmount = (out * keep) / 10_000n;
    reservesAfter = { sol: reserves.sol + intent.spendLamports, token: reserves.token - out };
  } else {
    const inAfterFee = (intent.sellRaw * (10_000n - poolFee)) / 10_000n;
    const out = (reserves.sol * inAfterFee) / (reserves.token + inAfterFee);
    tokenAmount = intent.sellRaw;
    solAmount = (out * keep) / 10_000n;
    reservesAfter = { sol: reserves.sol - out, token: reserves.token + intent.sellRaw };
  }
  if (tokenAmount <= 0n || solAmount <= 0n) {
    return {
      ok: false,
      code: 'PAPER_SLIPPAGE_EXCEEDED',
      reason: `order of ${intent.side === 'buy' ? `${intent.spendLamports} lamports` : `${intent.sellRaw} raw`} is too small to fill at the observed price`,
      feeLamports: fee,
    };
  }
  const price = priceOf(solAmount, tokenAmount, intent.decimals);
  if (quotedOut !== undefined) {
    // Live's rule on chain: the swap was built with the quote at the decision less the slippage as
    // its least output (the swap service's minOut); it fails, paying its fee, when the landing gives less.
    const out = intent.side === 'buy' ? tokenAmount : solAmount;
    const least = (quotedOut * BigInt(10_000 - Math.min(Math.max(intent.slippageBps, 0), 10_000))) / 10_000n;
    if (out < least) {
      return {
        ok: false,
        code: 'PAPER_SLIPPAGE_EXCEEDED',
        reason: `output ${out} ${intent.side === 'buy' ? 'raw' : 'lamports'} at the landing is below the swap's least output ${least} (the quote ${quotedOut} at the decision less ${intent.slippageBps} bps)`,
        feeLamports: fee,
      };
    }
  } else if (intent.referencePrice !== undefined) {
    // The two slippage rules of a live swap. On chain, the least output is the quote at build time
    // less the slippage, and the quote already pays the fee and the impact: the swap fails when the
    // pool's price moved beyond the slippage from the reference by the time it fills. Before
    // signing, the quote must reach the least output derived from the reference price: fee and
    // impact alone beyond the slippage refuse it. (Checking the fill price, fee and impact
    // included, against the reference counted them against the slippage twice over: paper refused
    // swaps that landed live.)
    // the pool's price the fill met: the observed tick's own price string when the reserves are virtual at it
    const spot =
      moved === undefined && obs.price !== undefined && observedReserves(obs) === undefined
        ? obs.price
        : priceOf(reserves.sol, reserves.token, intent.decimals);
    const ref = intent.referencePrice;
    const moves = isWorse(intent.side, spot, ref, intent.slippageBps);
    if (moves || isWorse(intent.side, price, spot, intent.slippageBps)) {
      const d = (s: string): string => decimal(s).toPrecision(8);
      return {
        ok: false,
        code: 'PAPER_SLIPPAGE_EXCEEDED',
        reason: moves
          ? `pool price ${d(spot)} at the fill is beyond ${intent.slippageBps} bps of reference ${d(ref)}`
          : `fill price ${d(price)} (fee and impact) is beyond ${intent.slippageBps} bps of the pool price ${d(spot)}`,
        feeLamports: fee,
      };
    }
  }
  return { ok: true, solAmount: lamports(solAmount), tokenAmount: rawAmount(tokenAmount), feeLamports: fee, price, pool: obs.pool, reservesAfter };
}

/** What live's inspection of the swap built at the decision finds (`inspectQuote`). */
export type InspectedQuote =
  { readonly ok: true; readonly amountOut: bigint } | { readonly ok: false; readonly code: 'PAPER_SLIPPAGE_EXCEEDED'; readonly reason: string } | undefined;

/**
 * Live's inspection, at the decision: the swap's output at the market as observed now (the quote the
 * swap service builds from: fee, impact and the calibrated extra slippage, as a landing's), refused
 * before signing when it is below the intent's least output from its reference price
 * (`minOutOf`, the live executor's own rule). Undefined when there is nothing to quote (no observed
 * price): the landing decides. A quote that passes is the least output's base on chain (`modelFill`'s `quotedOut`).
 */
export function inspectQuote(intent: OrderIntent, obs: MarketObservation | undefined, opts: FillModelOptions, moved?: Reserves): InspectedQuote {
  const r = modelFill({ ...intent, referencePrice: undefined }, obs, opts, moved);
  if (!r.ok) return r.code === 'PAPER_NO_PRICE' ? undefined : { ok: false, code: r.code, reason: r.reason };
  const out = intent.side === 'buy' ? r.tokenAmount : r.solAmount;
  const least = minOutOf(intent, intent.slippageBps);
  if (out >= least) return { ok: true, amountOut: out };
  return {
    ok: false,
    code: 'PAPER_SLIPPAGE_EXCEEDED',
    reason: `inspection: the swap at the decision gives ${out} ${intent.side === 'buy' ? 'raw' : 'lamports'}; the intent accepts at least ${least} (${intent.slippageBps} bps from reference ${intent.referencePrice ?? 'none'}); not signed`,
  };
}
