/** Exit rules applied by the engine to every position of a strategy. */

export interface TakeProfitLevel {
  /** Price multiple of the average entry price that triggers this level ("2" = 2x). */
  readonly multiple: string;
  /** Share of the position held at that moment to sell, in bps (10 000 = all). */
  readonly sellBps: number;
}

export interface ExitRules {
  /** Levels in any order; each fires once per position. */
  readonly takeProfit?: readonly TakeProfitLevel[] | undefined;
  /** Sell all when the price falls this many bps below the average entry. */
  readonly stopLossBps?: number | undefined;
  /** Sell all when the price falls this many bps below the highest price since entry. */
  readonly trailingStopBps?: number | undefined;
  /** Sell all this long after the position opened. */
  readonly timeStopMs?: number | undefined;
  /** Sell all when a safety value of a held token exceeds its maximum (percent). */
  readonly exitOnSafety?:
    | {
        readonly maxBundlerPct?: number | undefined;
        readonly maxSniperPct?: number | undefined;
        readonly maxInsiderPct?: number | undefined;
        readonly maxTop10Pct?: number | undefined;
        readonly maxDevHoldingPct?: number | undefined;
      }
    | undefined;
}
