/** The shapes of a live-vs-backtest comparison as report.json holds it (computed by research/backtest/pair-fills.ts). */

/** What became of one intent on one side. */
export type PairOutcome = 'filled' | 'rejected' | 'failed' | 'expired' | 'denied' | 'unresolved';

export interface PairSide {
  readonly intentId: string | null;
  readonly outcome: PairOutcome;
  /** The refusal's code (null for a fill or an intent still unresolved at the end). */
  readonly code: string | null;
  /** Present (true) when the refusal or failure was the price moving past the slippage (`calibrate --against` ranks these). */
  readonly slippage?: true;
  readonly decidedAt: number;
  /** Decision to fill (or to the refusal / failure / expiry); null when unresolved or denied. */
  readonly latencyMs: number | null;
  /** Fill price without rent (SOL per whole token, SOL amounts only: token decimals cancel out), or null. */
  readonly price: string | null;
  readonly solAmount: string | null;
  readonly tokenAmount: string | null;
  readonly feeLamports: string;
  readonly rentLamports: string;
}

export interface FillPair {
  readonly strategyId: string;
  readonly side: 'buy' | 'sell';
  readonly mint: string;
  readonly pairedBy: 'id' | 'decision' | 'occurrence' | 'none';
  /** The reference run's side (live); null when only the backtest decided it. */
  readonly live: PairSide | null;
  readonly backtest: PairSide | null;
  /** (live price / backtest price − 1) × 10,000 when both filled; positive is a higher price live. */
  readonly priceDriftBps: number | null;
}

export interface DriftSummary {
  readonly liveIntents: number;
  readonly liveFills: number;
  readonly backtestFills: number;
  /** Live fills whose intent the backtest filled too. */
  readonly pairedFills: number;
  /** pairedFills / liveFills × 100 (null without a live fill). */
  readonly pairedPct: number | null;
  /** Live intents paired with a backtest decision (any outcome), by method. */
  readonly pairedBy: { readonly id: number; readonly decision: number; readonly occurrence: number };
  /** Filled live, not in the backtest: the backtest's outcome code (`ABSENT` when it made no such decision). */
  readonly filledLiveOnly: readonly { readonly code: string; readonly count: number }[];
  /** Filled in the backtest, not live: live's outcome code (`ABSENT` when live made no such decision). */
  readonly filledBacktestOnly: readonly { readonly code: string; readonly count: number }[];
  readonly drift: {
    readonly buy: DriftStats | null;
    readonly sell: DriftStats | null;
    readonly all: DriftStats | null;
  };
  readonly latencyMs: { readonly liveMedian: number | null; readonly backtestMedian: number | null };
  /** Fees and rent of the paired fills on each side, in lamports. */
  readonly pairedFeesLamports: { readonly live: string; readonly backtest: string };
  readonly pairedRentLamports: { readonly live: string; readonly backtest: string };
}

export interface DriftStats {
  readonly count: number;
  readonly meanBps: number;
  readonly medianAbsBps: number;
  readonly p90AbsBps: number;
  readonly maxAbsBps: number;
}

export interface LiveVsBacktest {
  readonly summary: DriftSummary;
  /** Every pair with a live side or a backtest fill (at most {@link MAX_PAIRS}; `omittedPairs` says how many more). */
  readonly pairs: readonly FillPair[];
  readonly omittedPairs: number;
}
