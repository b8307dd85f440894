/**
 * The fit of the second stage of a calibration (`calibrate --against`): the extra slippage live paid
 * beyond the paper model, from the drift of paired fills and the one-sided refusals on slippage.
 */

/** One observation of the second stage: a paired fill's drift, or a refusal on slippage on one side only. */
export interface DriftObservation {
  readonly side: 'buy' | 'sell';
  readonly priceDriftBps: number | null;
  /**
   * `adverse`: live refused on slippage what the backtest filled (live would have paid more than the
   * slippage allows); `favourable`: the backtest refused on slippage what live filled.
   */
  readonly censored?: 'adverse' | 'favourable';
  /** Decided in a graduated pool (known when the second stage was given the recordings' graduations). */
  readonly graduated?: boolean;
}

/** `paper.defaultPoolFeeBps`'s default: the pool fee paper charges when the feed sends none. */
export const DEFAULT_POOL_FEE_BPS = 100;

/**
 * The adverse slippage live pays beyond the model (second stage of a calibration): `usedBps` (the
 * `extraSlippageBps` the backtests used) plus the median of the whole adverse-drift distribution
 * (a buy's drift as is, a sell's negated), within −`poolFeeBps` and 10,000.
 *
 * The whole distribution includes the refusals on slippage of one side only: live refusing what
 * the backtest filled drifted beyond the intent's slippage, more adverse than any measured fill, so
 * it ranks at the top (+∞); the backtest refusing what live filled ranks at the bottom (−∞). Their
 * size is censored at the slippage, so a mean cannot use them; the median of the ranks can, and one
 * extreme fill moves it by one rank only. Undefined without a measured drift.
 *
 * Negative when the model charges more than live paid (paper knows neither a pool's fee, the feed
 * does not send it, nor a bonding curve's virtual reserves), but never below minus the pool fee paper
 * charges: beyond it a paper fill would beat the pool's own price.
 */
export function fitExtraSlippageBps(observations: readonly DriftObservation[], usedBps: number, poolFeeBps = DEFAULT_POOL_FEE_BPS): number | undefined {
  const adverse: number[] = [];
  for (const o of observations) {
    if (o.censored !== undefined) adverse.push(o.censored === 'adverse' ? Infinity : -Infinity);
    else if (o.priceDriftBps !== null) adverse.push(o.side === 'buy' ? o.priceDriftBps : -o.priceDriftBps);
  }
  if (!adverse.some(Number.isFinite)) return undefined;
  adverse.sort((a, b) => a - b);
  const m = adverse.length >> 1;
  // An even count's median is the mean of the middle two, or the finite one when the other is a refusal.
  const lo = adverse[m - 1]!;
  const hi = adverse[m]!;
  const median = adverse.length % 2 ? hi : Number.isFinite(lo) && Number.isFinite(hi) ? (lo + hi) / 2 : Number.isFinite(lo) ? lo : hi;
  return Math.min(10_000, Math.max(-poolFeeBps, Math.round(usedBps + median)));
}
