/** The terminal summary of a backtest report: a two-column table of the headline metrics. */
import type { BacktestReport } from './report-types.js';

const pct = (v: number | null): string => (v === null ? 'n/a' : `${v.toFixed(2)} %`);
const n2 = (v: number | null): string => (v === null ? 'n/a' : v.toFixed(2));
const dur = (ms: number | null): string => {
  if (ms === null) return 'n/a';
  const s = Math.round(ms / 1000);
  return s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(1)} min` : `${s} s`;
};

/** Lines of the summary table. */
export function formatReportSummary(r: BacktestReport): string {
  const m = r.metrics;
  const rows: [string, string][] = [
    ['deployment', r.run.deployment],
    ['window', `${new Date(r.run.from).toISOString()} → ${new Date(r.run.to).toISOString()}`],
    ['net PnL', `${m.netPnlSol} SOL (${pct(m.returnPct)})`],
    ['trade PnL − failed fees', `${m.tradePnlSol} − ${m.failedFeesSol} SOL`],
    ['trades', `${m.trades} closed, ${m.openTrades} open at end`],
    ['win rate', pct(m.winRatePct)],
    ['profit factor', n2(m.profitFactor)],
    ['expectancy', m.expectancySol === null ? 'n/a' : `${m.expectancySol} SOL`],
    ['best / worst', `${m.bestTradeSol ?? 'n/a'} / ${m.worstTradeSol ?? 'n/a'} SOL`],
    ['average hold', dur(m.avgHoldMs)],
    ['max drawdown', `${m.maxDrawdownSol} SOL (${pct(m.maxDrawdownPct)}), longest ${dur(m.longestDrawdownMs)}`],
    ['exposure', pct(m.exposurePct)],
    ['fees / slippage', `${m.feesSol} / ${m.slippageSol} SOL`],
    ['Sharpe / Sortino', m.sharpe === null && m.sortino === null ? 'n/a' : `${n2(m.sharpe)} / ${n2(m.sortino)}`],
    ['intents / fills / denials', `${m.intents} / ${m.fills} / ${m.denials}`],
    ['ctx.data misses', String(r.run.dataLookups.misses)],
    ['fingerprint', r.fingerprint.slice(0, 16)],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`).join('\n');
}
