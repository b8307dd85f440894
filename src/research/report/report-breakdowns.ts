/**
 * The report's tables beside the metrics: PnL by strategy (failed fees outside trades included, so
 * the table sums to net PnL), closed trades by the rule that closed them, denials by code, and the most traded
 * tokens (the ones that get a price chart).
 */
import type { BacktestReport } from './report-types.js';
import { signedSol as sol } from './round.js';
import type { DecisionTally, TradeAcc } from './trade-tally.js';
import { exitRuleOf } from './report-extras.js';

type Breakdowns = Pick<BacktestReport, 'byStrategy' | 'byExitReason' | 'denials'>;

/** The tables of `tally`, with `pnlOf` valuing each trade (open ones marked). */
export function reportBreakdowns(tally: DecisionTally, pnlOf: (t: TradeAcc) => bigint): Breakdowns {
  const byStrategy = new Map<string, { trades: number; wins: number; pnl: bigint; fees: bigint; failedFees: bigint }>();
  for (const t of tally.trades) {
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
  for (const [strategyId, fee] of tally.failedFees) {
    const s = byStrategy.get(strategyId) ?? { trades: 0, wins: 0, pnl: 0n, fees: 0n, failedFees: 0n };
    s.failedFees += fee;
    s.pnl -= fee;
    s.fees += fee;
    byStrategy.set(strategyId, s);
  }
  // By the rule that closed the trade (`stop loss`, `take profit level 2`…), as the page shows it: the reason text carries prices.
  const byReason = new Map<string, { trades: number; pnl: bigint }>();
  for (const t of tally.trades) {
    if (t.closedAt === null) continue;
    const rule = exitRuleOf(t.exitReason);
    const r = byReason.get(rule) ?? { trades: 0, pnl: 0n };
    r.trades++;
    r.pnl += pnlOf(t);
    byReason.set(rule, r);
  }
  return {
    byStrategy: [...byStrategy.entries()].map(([strategyId, s]) => ({
      strategyId,
      trades: s.trades,
      wins: s.wins,
      winRatePct: s.trades ? (s.wins * 100) / s.trades : null,
      pnlSol: sol(s.pnl),
      feesSol: sol(s.fees),
      failedFeesSol: sol(s.failedFees),
    })),
    byExitReason: [...byReason.entries()]
      .sort((a, b) => b[1].trades - a[1].trades || (a[0] < b[0] ? -1 : 1))
      .map(([reason, r]) => ({ reason, trades: r.trades, pnlSol: sol(r.pnl) })),
    denials: [...tally.denialCodes.entries()].sort((a, b) => b[1] - a[1]).map(([code, count]) => ({ code, count })),
  };
}

/** The `n` mints with the most trades (ties by mint), most first. */
export function topTradedMints(trades: readonly TradeAcc[], n: number): string[] {
  const counts = new Map<string, number>();
  for (const t of trades) counts.set(t.mint, (counts.get(t.mint) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, n)
    .map(([m]) => m);
}
