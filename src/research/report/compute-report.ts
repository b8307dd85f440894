/**
 * Turns a run's decision log and equity samples into a report (docs/backtesting.md gives every
 * formula). Money is summed as bigint lamports; only ratios and chart points are floats. The log is
 * added up in trade-tally.ts, the equity in equity-stats.ts, the tables in report-breakdowns.ts;
 * this file values the trades and assembles the metrics.
 */
import type { DecisionEntry } from '../../engine/logs/decision-log.js';
import type { DrawdownResult } from './drawdown.js';
import { equityStats, exposedMs, type EquityStats } from './equity-stats.js';
import { reportBreakdowns, topTradedMints } from './report-breakdowns.js';
import { computeReportExtras } from './report-extras.js';
import { REPORT_FORMAT, type BacktestReport, type ReportMetrics, type ReportRun, type ReportTrade } from './report-types.js';
import { ratioHalfEven as ratio, readablePrices, signedSol as sol } from './round.js';
import { tallyDecisions, type DecisionTally, type TradeAcc } from './trade-tally.js';
import { PriceSeries } from './price-series.js';

export interface OpenPositionMark {
  readonly strategyId: string;
  readonly mint: string;
  /** Marked value at the last observed price (undefined: no price, valued at cost). */
  readonly valueLamports: bigint | undefined;
}

/** A token's price samples: a backtest's compact series, or [time, exact SOL price] pairs. */
export type PriceSamples = PriceSeries | readonly (readonly [number, string])[];

export interface ReportInput {
  readonly decisions: readonly DecisionEntry[];
  readonly equity: readonly (readonly [number, bigint])[];
  /** Price samples by mint. */
  readonly prices: ReadonlyMap<string, PriceSamples>;
  readonly openPositions: readonly OpenPositionMark[];
  readonly startingLamports: bigint;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly sampleMs: number;
  /** Sharpe and Sortino are n/a for runs shorter than this (default 7 days). */
  readonly minRatioSpanMs?: number;
  /** Price charts for this many of the most traded tokens (default 6). */
  readonly topTokens?: number;
  readonly run: ReportRun;
  readonly fingerprint: string;
  /** Drawdown over every fill and price change (a backtest tracks it); default: from the equity samples. */
  readonly drawdown?: DrawdownResult;
}

/** What the headline metrics read of a run (a sweep's cells compute these alone, see `computeMetrics`). */
export type MetricsInput = Pick<
  ReportInput,
  'decisions' | 'equity' | 'openPositions' | 'startingLamports' | 'startedAt' | 'endedAt' | 'sampleMs' | 'minRatioSpanMs' | 'drawdown'
>;

/** A token's samples as chart points: [time, SOL per token as a number]. */
function chartPoints(s: PriceSamples | undefined): (readonly [number, number])[] {
  if (s === undefined) return [];
  if (s instanceof PriceSeries) return s.points();
  return s.map(([at, p]) => [at, Number(p)] as const);
}

/** Builds the report of one run. */
/** A trade's PnL in lamports: closed, what it made; open, marked at its position's last value (at cost without a price). */
function pnlOfTrades(openPositions: readonly OpenPositionMark[]): (t: TradeAcc) => bigint {
  const marks = new Map(openPositions.map((p) => [`${p.strategyId}/${p.mint}`, p.valueLamports]));
  return (t) => {
    if (t.closedAt !== null) return t.sell - t.buy - t.fees;
    const value = marks.get(`${t.strategyId}/${t.mint}`);
    return t.sell + (value ?? t.buy) - t.buy - t.fees;
  };
}

/**
 * The report's headline metrics alone, the same figures `computeReport` puts in `metrics`, without
 * the trade rows, tables, charts and extras (a sweep cell ranks by these and builds no report).
 */
export function computeMetrics(i: MetricsInput): ReportMetrics {
  return reportMetrics(i, tallyDecisions(i.decisions), equityStats(i), pnlOfTrades(i.openPositions));
}

export function computeReport(i: ReportInput): BacktestReport {
  const tally = tallyDecisions(i.decisions);
  const pnlOf = pnlOfTrades(i.openPositions);
  const trades: ReportTrade[] = tally.trades.map((t) => {
    const pnl = pnlOf(t);
    const end = t.closedAt ?? i.endedAt;
    return {
      id: t.id,
      strategyId: t.strategyId,
      mint: t.mint,
      openedAt: t.openedAt,
      closedAt: t.closedAt,
      holdMs: end - t.openedAt,
      buySol: sol(t.buy),
      sellSol: sol(t.sell),
      feesSol: sol(t.fees),
      pnlSol: sol(pnl),
      returnPct: ratio(pnl * 100n, t.buy),
      exitReason: t.closedAt === null ? '(open at end)' : readablePrices(t.exitReason),
      status: t.closedAt === null ? 'open' : 'closed',
    };
  });
  const equity = equityStats(i);
  const top = topTradedMints(tally.trades, i.topTokens ?? 6);
  return {
    format: REPORT_FORMAT,
    kind: 'chainpilot-backtest-report',
    fingerprint: i.fingerprint,
    run: i.run,
    metrics: reportMetrics(i, tally, equity, pnlOf),
    equity: equity.rows,
    prices: top.map((mint) => ({
      mint,
      points: chartPoints(i.prices.get(mint)),
      markers: tally.markers.get(mint) ?? [],
    })),
    trades,
    ...reportBreakdowns(tally, pnlOf),
    extras: computeReportExtras({ trades, equity: i.equity, startedAt: i.startedAt, endedAt: i.endedAt, sampleMs: i.sampleMs }),
  };
}

/** The headline metrics: PnL, trade statistics, drawdown, exposure, costs, ratios and counts. */
function reportMetrics(i: MetricsInput, tally: DecisionTally, equity: EquityStats, pnlOf: (t: TradeAcc) => bigint): ReportMetrics {
  const { trades } = tally;
  const closed = trades.filter((t) => t.closedAt !== null);
  const pnls = closed.map(pnlOf);
  const winsL = pnls.filter((p) => p > 0n);
  const lossesL = pnls.filter((p) => p <= 0n);
  const sum = (xs: readonly bigint[]): bigint => xs.reduce((a, b) => a + b, 0n);
  const grossProfit = sum(winsL);
  const grossLoss = -sum(lossesL);
  const avg = (xs: readonly bigint[]): string | null => (xs.length === 0 ? null : sol(sum(xs) / BigInt(xs.length)));
  const span = i.endedAt - i.startedAt;
  const exposed = exposedMs(trades.map((t) => [t.openedAt, t.closedAt ?? i.endedAt] as const));
  const ending = equity.endingLamports;
  const net = ending - i.startingLamports;
  const failedFeesTotal = [...tally.failedFees.values()].reduce((a, b) => a + b, 0n);
  const tradePnl = trades.reduce((a, t) => a + pnlOf(t), 0n);
  const holds = closed.map((t) => (t.closedAt ?? 0) - t.openedAt);
  const dd = equity.drawdown;
  return {
    startingSol: sol(i.startingLamports),
    endingSol: sol(ending),
    netPnlSol: sol(net),
    tradePnlSol: sol(tradePnl),
    failedFeesSol: sol(failedFeesTotal),
    returnPct: ratio(net * 100n, i.startingLamports),
    trades: closed.length,
    openTrades: trades.length - closed.length,
    wins: winsL.length,
    losses: lossesL.length,
    winRatePct: closed.length === 0 ? null : (winsL.length * 100) / closed.length,
    profitFactor: grossLoss > 0n ? ratio(grossProfit, grossLoss) : null,
    expectancySol: avg(pnls),
    avgWinSol: avg(winsL),
    avgLossSol: avg(lossesL),
    bestTradeSol: pnls.length ? sol(pnls.reduce((a, b) => (b > a ? b : a))) : null,
    worstTradeSol: pnls.length ? sol(pnls.reduce((a, b) => (b < a ? b : a))) : null,
    avgHoldMs: holds.length ? Math.round(holds.reduce((a, b) => a + b, 0) / holds.length) : null,
    maxDrawdownSol: sol(dd.maxLamports),
    maxDrawdownPct: dd.maxPct,
    longestDrawdownMs: dd.longestMs,
    exposurePct: span > 0 ? (exposed * 100) / span : 0,
    feesSol: sol(tally.feesLamports),
    slippageSol: sol(tally.slippageLamports),
    sharpe: equity.sharpe,
    sortino: equity.sortino,
    ratioNote: equity.ratioNote,
    intents: tally.intents,
    fills: tally.fills,
    denials: tally.denials,
  };
}
