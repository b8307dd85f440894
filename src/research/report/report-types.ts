/**
 * `report.json`: everything the HTML report shows, so `chainpilot report` can rebuild the page.
 * SOL amounts are exact decimal strings; times are Unix milliseconds; ratios are plain numbers
 * (display values, never used for money); a metric that cannot be computed is `null` with a reason.
 */
import type { SilentRooms } from './silent-rooms.js';
import type { LiveVsBacktest } from './live-drift-types.js';
import type { ReportExtras } from './report-extras.js';

export const REPORT_FORMAT = 1;

export interface ReportTrade {
  readonly id: number;
  readonly strategyId: string;
  readonly mint: string;
  readonly openedAt: number;
  /** `null` while still open at the end of the run. */
  readonly closedAt: number | null;
  readonly holdMs: number;
  readonly buySol: string;
  readonly sellSol: string;
  readonly feesSol: string;
  /** Closed: sells − buys − fees. Open: marked value − cost − fees. */
  readonly pnlSol: string;
  readonly returnPct: number;
  readonly exitReason: string;
  readonly status: 'closed' | 'open';
}

export interface ReportMetrics {
  readonly startingSol: string;
  readonly endingSol: string;
  readonly netPnlSol: string;
  /** Sum of every trade's PnL (open ones marked); tradePnl − failedFees = netPnl. */
  readonly tradePnlSol: string;
  /** Fees of failed transactions that opened no trade (counted in no trade's PnL). */
  readonly failedFeesSol: string;
  readonly returnPct: number;
  readonly trades: number;
  readonly openTrades: number;
  readonly wins: number;
  readonly losses: number;
  readonly winRatePct: number | null;
  /** Gross profit / gross loss of closed trades; null without a losing trade. */
  readonly profitFactor: number | null;
  readonly expectancySol: string | null;
  readonly avgWinSol: string | null;
  readonly avgLossSol: string | null;
  readonly bestTradeSol: string | null;
  readonly worstTradeSol: string | null;
  readonly avgHoldMs: number | null;
  readonly maxDrawdownSol: string;
  readonly maxDrawdownPct: number;
  readonly longestDrawdownMs: number;
  readonly exposurePct: number;
  readonly feesSol: string;
  /** What fills cost against the price observed at decision time (the intent's reference price). */
  readonly slippageSol: string;
  readonly sharpe: number | null;
  readonly sortino: number | null;
  /** Why Sharpe and Sortino are null, when they are. */
  readonly ratioNote: string | null;
  readonly intents: number;
  readonly fills: number;
  readonly denials: number;
}

export interface ReportRun {
  readonly deployment: string;
  readonly strategies: readonly { readonly id: string; readonly use: string; readonly params: Readonly<Record<string, unknown>> }[];
  readonly recordings: readonly { readonly file: string; readonly sha256: string }[];
  readonly chainpilot: string;
  readonly seed: number;
  readonly from: number;
  readonly to: number;
  readonly lines: number;
  readonly wallMs: number;
  readonly sampleMs: number;
  readonly dataLookups: { readonly exact: number; readonly misses: number; readonly fallbackAnswers: number };
  readonly feed: Readonly<Record<string, number>>;
  readonly decisionLogSha256: string;
  /** Joined rooms of kinds the data never holds (absent when the report predates it). */
  readonly silentRooms?: SilentRooms;
}

export interface BacktestReport {
  readonly format: number;
  readonly kind: 'chainpilot-backtest-report';
  /** sha256 of the recordings' hashes, the deployment, the chainpilot version and the decision log. */
  readonly fingerprint: string;
  readonly run: ReportRun;
  readonly metrics: ReportMetrics;
  /** `[at, equity SOL, drawdown %]` at the sampling interval. */
  readonly equity: readonly (readonly [number, number, number])[];
  /** Price charts of the most traded tokens, with fill markers. */
  readonly prices: readonly {
    readonly mint: string;
    readonly points: readonly (readonly [number, number])[];
    readonly markers: readonly { readonly at: number; readonly side: 'buy' | 'sell'; readonly price: number; readonly tradeId: number }[];
  }[];
  readonly trades: readonly ReportTrade[];
  readonly byStrategy: readonly {
    readonly strategyId: string;
    readonly trades: number;
    readonly wins: number;
    readonly winRatePct: number | null;
    /** The strategy's trades' PnL less its failed-transaction fees outside any trade. */
    readonly pnlSol: string;
    readonly feesSol: string;
    /** Fees of its failed transactions that opened no trade (included in pnlSol and feesSol). */
    readonly failedFeesSol: string;
  }[];
  /** Closed trades by the rule that closed them (`reason`: `stop loss`, `take profit level 2`…, see `exitRuleOf`; the reason text carries prices), most first. */
  readonly byExitReason: readonly { readonly reason: string; readonly trades: number; readonly pnlSol: string }[];
  readonly denials: readonly { readonly code: string; readonly count: number }[];
  /** With `backtest --verify-against LOG`: that run (live) paired intent by intent with this backtest. */
  readonly liveVsBacktest?: LiveVsBacktest;
  /** Breakdowns (report-extras.ts); absent in reports written before them. */
  readonly extras?: ReportExtras;
}
