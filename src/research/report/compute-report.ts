/**
 * Turns a run's decision log and equity samples into a report (docs/backtesting.md gives every
 * formula). Money is summed as bigint lamports; only ratios and chart points are floats.
 */
import { Decimal, decimal, lamportsToSol } from '../../core/index.js';
import type { DecisionEntry } from '../../engine/decision-log.js';
import { createDrawdownTracker, type DrawdownResult } from './drawdown.js';
import { ratioHalfEven } from './round.js';
import { computeReportExtras } from './report-extras.js';
import { REPORT_FORMAT, type BacktestReport, type ReportMetrics, type ReportRun, type ReportTrade } from './report-types.js';

const YEAR_MS = 365 * 86_400_000;

export interface OpenPositionMark {
  readonly strategyId: string;
  readonly mint: string;
  /** Marked value at the last observed price (undefined: no price, valued at cost). */
  readonly valueLamports: bigint | undefined;
}

export interface ReportInput {
  readonly decisions: readonly DecisionEntry[];
  readonly equity: readonly (readonly [number, bigint])[];
  readonly prices: ReadonlyMap<string, readonly (readonly [number, string])[]>;
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

interface TradeAcc {
  id: number;
  strategyId: string;
  mint: string;
  openedAt: number;
  closedAt: number | null;
  buy: bigint;
  sell: bigint;
  fees: bigint;
  tokens: bigint;
  exitReason: string;
}

const sol = (l: bigint): string => (l < 0n ? `-${lamportsToSol(-l)}` : lamportsToSol(l));
const ratio = (a: bigint, b: bigint): number => ratioHalfEven(a, b);

/** Builds the report of one run. */
export function computeReport(i: ReportInput): BacktestReport {
  const reasons = new Map<string, string>();
  const intentMint = new Map<string, string>();
  const refPrice = new Map<string, string | null>();
  const trades: TradeAcc[] = [];
  const open = new Map<string, TradeAcc>();
  const markers = new Map<string, { at: number; side: 'buy' | 'sell'; price: number; tradeId: number }[]>();
  let fees = 0n;
  /** Fees of failed transactions outside any trade (a buy that failed and opened nothing), per strategy. */
  const failedFees = new Map<string, bigint>();
  let slippage = 0n;
  let intents = 0;
  let fills = 0;
  let denials = 0;
  const denialCodes = new Map<string, number>();

  for (const e of i.decisions) {
    switch (e.kind) {
      case 'intent':
        intents++;
        reasons.set(e.intentId, e.reason);
        intentMint.set(e.intentId, e.mint);
        refPrice.set(e.intentId, e.referencePrice);
        break;
      case 'denied':
        denials++;
        denialCodes.set(e.code, (denialCodes.get(e.code) ?? 0) + 1);
        break;
      case 'manual':
        // An operator's action: what it placed shows as that intent's own lines.
        break;
      case 'unfilled': {
        const fee = BigInt(e.feeLamports);
        fees += fee;
        const t = open.get(`${e.strategyId}/${intentMint.get(e.intentId) ?? ''}`);
        if (t) t.fees += fee;
        else if (fee > 0n) failedFees.set(e.strategyId, (failedFees.get(e.strategyId) ?? 0n) + fee);
        break;
      }
      case 'fill': {
        fills++;
        const key = `${e.strategyId}/${e.mint}`;
        const solAmt = BigInt(e.solAmount);
        const fee = BigInt(e.feeLamports);
        fees += fee;
        const ref = refPrice.get(e.intentId);
        if (ref) {
          // Cost against the observed price: a buy paid sol·(1 − ref/price), a sell gave up sol·(ref/price − 1).
          const r = decimal(ref).div(decimal(e.price));
          const cost = e.side === 'buy' ? decimal(solAmt).times(decimal(1).minus(r)) : decimal(solAmt).times(r.minus(1));
          slippage += BigInt(cost.integerValue(Decimal.ROUND_HALF_EVEN).toFixed());
        }
        let t = open.get(key);
        if (!t && e.side === 'buy') {
          t = {
            id: trades.length + 1,
            strategyId: e.strategyId,
            mint: e.mint,
            openedAt: e.at,
            closedAt: null,
            buy: 0n,
            sell: 0n,
            fees: 0n,
            tokens: 0n,
            exitReason: '',
          };
          trades.push(t);
          open.set(key, t);
        }
        if (!t) break;
        t.fees += fee;
        if (e.side === 'buy') {
          t.buy += solAmt;
          t.tokens += BigInt(e.tokenAmount);
        } else {
          t.sell += solAmt;
          t.tokens -= BigInt(e.tokenAmount);
          t.exitReason = reasons.get(e.intentId) ?? '';
          if (t.tokens <= 0n) {
            t.closedAt = e.at;
            open.delete(key);
          }
        }
        const list = markers.get(e.mint) ?? [];
        list.push({ at: e.at, side: e.side, price: Number(e.price), tradeId: t.id });
        markers.set(e.mint, list);
        break;
      }
    }
  }

  const marks = new Map(i.openPositions.map((p) => [`${p.strategyId}/${p.mint}`, p.valueLamports]));
  const pnlOf = (t: TradeAcc): bigint => {
    if (t.closedAt !== null) return t.sell - t.buy - t.fees;
    const value = marks.get(`${t.strategyId}/${t.mint}`);
    return t.sell + (value ?? t.buy) - t.buy - t.fees;
  };
  const rows: ReportTrade[] = trades.map((t) => {
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
      exitReason: t.closedAt === null ? '(open at end)' : t.exitReason,
      status: t.closedAt === null ? 'open' : 'closed',
    };
  });
  const closed = trades.filter((t) => t.closedAt !== null);
  const pnls = closed.map(pnlOf);
  const winsL = pnls.filter((p) => p > 0n);
  const lossesL = pnls.filter((p) => p <= 0n);
  const sum = (xs: readonly bigint[]): bigint => xs.reduce((a, b) => a + b, 0n);
  const grossProfit = sum(winsL);
  const grossLoss = -sum(lossesL);
  const avg = (xs: readonly bigint[]): string | null => (xs.length === 0 ? null : sol(sum(xs) / BigInt(xs.length)));

  // Equity: drawdown (over every fill and price change when the run tracked it, else the samples), exposure, Sharpe and Sortino.
  const eq = i.equity;
  let peak = eq[0]?.[1] ?? i.startingLamports;
  const sampled = createDrawdownTracker(eq[0]?.[0] ?? i.startedAt, peak);
  const equityRows: [number, number, number][] = [];
  for (const [at, v] of eq) {
    sampled.observe(at, v);
    if (v > peak) peak = v;
    equityRows.push([at, Number(v) / 1e9, peak > 0n ? -ratio((peak - v) * 100n, peak) : 0]);
  }
  const lastValue = eq[eq.length - 1]?.[1];
  const dd = i.drawdown ?? sampled.result(eq[eq.length - 1]?.[0] ?? i.endedAt);

  const span = i.endedAt - i.startedAt;
  const minSpan = i.minRatioSpanMs ?? 7 * 86_400_000;
  let sharpe: number | null = null;
  let sortino: number | null = null;
  let ratioNote: string | null = null;
  const regular = eq.filter(([at]) => (at - i.startedAt) % i.sampleMs === 0);
  const rets: number[] = [];
  for (let k = 1; k < regular.length; k++) {
    const prev = regular[k - 1]![1];
    if (prev > 0n) rets.push(Number(regular[k]![1] - prev) / Number(prev));
  }
  if (span < minSpan)
    ratioNote = `n/a: the run spans ${(span / 86_400_000).toFixed(2)} days, below the ${(minSpan / 86_400_000).toFixed(0)}-day minimum for annualised ratios`;
  else if (rets.length < 2) ratioNote = 'n/a: fewer than two equity returns';
  else {
    const mean = rets.reduce((a, b) => a + b, 0) / rets.length;
    const sd = Math.sqrt(rets.reduce((a, r) => a + (r - mean) ** 2, 0) / (rets.length - 1));
    const down = Math.sqrt(rets.reduce((a, r) => a + Math.min(r, 0) ** 2, 0) / rets.length);
    const annual = Math.sqrt(YEAR_MS / i.sampleMs);
    sharpe = sd > 0 ? (mean / sd) * annual : null;
    sortino = down > 0 ? (mean / down) * annual : null;
    if (sharpe === null || sortino === null) ratioNote = 'n/a where equity never moved (or never fell, for Sortino)';
  }

  // Exposure: the share of the run with at least one open trade.
  const spans = trades.map((t) => [t.openedAt, t.closedAt ?? i.endedAt] as const).sort((a, b) => a[0] - b[0]);
  let exposed = 0;
  let curS = -Infinity;
  let curE = -Infinity;
  for (const [s, e] of spans) {
    if (s > curE) {
      if (curE > curS) exposed += curE - curS;
      curS = s;
      curE = e;
    } else curE = Math.max(curE, e);
  }
  if (curE > curS) exposed += curE - curS;

  const ending = lastValue ?? i.startingLamports;
  const net = ending - i.startingLamports;
  const failedFeesTotal = [...failedFees.values()].reduce((a, b) => a + b, 0n);
  const tradePnl = trades.reduce((a, t) => a + pnlOf(t), 0n);
  const holds = closed.map((t) => (t.closedAt ?? 0) - t.openedAt);
  const metrics: ReportMetrics = {
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
    feesSol: sol(fees),
    slippageSol: sol(slippage),
    sharpe,
    sortino,
    ratioNote,
    intents,
    fills,
    denials,
  };

  const byStrategy = new Map<string, { trades: number; wins: number; pnl: bigint; fees: bigint; failedFees: bigint }>();
  for (const t of trades) {
    const s = byStrategy.get(t.strategyId) ?? { trades: 0, wins: 0, pnl: 0n, fees: 0n, failedFees: 0n };
    const p = pnlOf(t);
    if (t.closedAt !== null) {
      s.trades++;
      if (p > 0n) s.wins++;
    }
    s.pnl += p;
    s.fees += t.fees;
    byStrategy.set(t.strategyId, s);
  }
  // Fees of failed transactions outside any trade belong to the strategy's PnL too (the table sums to net PnL).
  for (const [strategyId, fee] of failedFees) {
    const s = byStrategy.get(strategyId) ?? { trades: 0, wins: 0, pnl: 0n, fees: 0n, failedFees: 0n };
    s.failedFees += fee;
    s.pnl -= fee;
    s.fees += fee;
    byStrategy.set(strategyId, s);
  }
  const byReason = new Map<string, { trades: number; pnl: bigint }>();
  for (const t of closed) {
    const r = byReason.get(t.exitReason) ?? { trades: 0, pnl: 0n };
    r.trades++;
    r.pnl += pnlOf(t);
    byReason.set(t.exitReason, r);
  }
  const counts = new Map<string, number>();
  for (const t of trades) counts.set(t.mint, (counts.get(t.mint) ?? 0) + 1);
  const top = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, i.topTokens ?? 6)
    .map(([m]) => m);

  return {
    format: REPORT_FORMAT,
    kind: 'chainpilot-backtest-report',
    fingerprint: i.fingerprint,
    run: i.run,
    metrics,
    equity: equityRows,
    prices: top.map((mint) => ({ mint, points: (i.prices.get(mint) ?? []).map(([at, p]) => [at, Number(p)] as const), markers: markers.get(mint) ?? [] })),
    trades: rows,
    byStrategy: [...byStrategy.entries()].map(([strategyId, s]) => ({
      strategyId,
      trades: s.trades,
      wins: s.wins,
      winRatePct: s.trades ? (s.wins * 100) / s.trades : null,
      pnlSol: sol(s.pnl),
      feesSol: sol(s.fees),
      failedFeesSol: sol(s.failedFees),
    })),
    byExitReason: [...byReason.entries()].sort((a, b) => b[1].trades - a[1].trades).map(([reason, r]) => ({ reason, trades: r.trades, pnlSol: sol(r.pnl) })),
    denials: [...denialCodes.entries()].sort((a, b) => b[1] - a[1]).map(([code, count]) => ({ code, count })),
    extras: computeReportExtras({ trades: rows, equity: i.equity, startedAt: i.startedAt, endedAt: i.endedAt, sampleMs: i.sampleMs }),
  };
}
