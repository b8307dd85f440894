/**
 * The engine's portfolio and risk-gate family: positions, equity, PnL, fees, pending intents and
 * the risk day, read from the handles' stats at scrape time. Amounts are exact lamports inside;
 * the series show SOL (a Prometheus value is a float).
 */
import type { MetricsExtension } from '../../service-port.js';
import { perDeployment, type HandleView, type RunningDeployments } from './handle-snapshots.js';

const LAMPORTS_PER_SOL = 1e9;
const sol = (lamports: bigint): number => Number(lamports) / LAMPORTS_PER_SOL;

/** The portfolio and risk gauges, read through `running` at each scrape. */
export function portfolioMetrics(running: RunningDeployments): MetricsExtension {
  return (registry) => {
    const gauge = (name: string, help: string, pick: (h: HandleView) => number | undefined): void =>
      registry.registerMetric(perDeployment(running, 'gauge', name, help, pick));
    gauge('chainpilot_open_positions', 'Open positions', (h) => h.stats().summary.openPositions);
    gauge('chainpilot_equity_sol', 'Equity: cash plus marked positions, in SOL', (h) => sol(h.stats().summary.equityLamports));
    gauge('chainpilot_realised_pnl_sol', 'Realised PnL in SOL', (h) => sol(h.stats().summary.realisedLamports));
    gauge('chainpilot_unrealised_pnl_sol', 'Unrealised PnL in SOL', (h) => sol(h.stats().summary.unrealisedLamports));
    gauge('chainpilot_fees_sol', 'Network and priority fees paid in SOL', (h) => sol(h.stats().summary.feesLamports));
    gauge('chainpilot_pending_intents', 'Intents not yet in a terminal state', (h) => h.stats().pending.length);
    gauge('chainpilot_daily_loss_sol', 'Loss so far in the current risk day, in SOL', (h) => sol(h.stats().risk.dailyLossLamports));
    gauge('chainpilot_daily_loss_limit_sol', 'Daily loss limit in SOL (absent when none is set)', (h) => {
      const l = h.stats().risk.dailyLossLimitLamports;
      return l === undefined ? undefined : sol(l);
    });
    gauge('chainpilot_kill_switch', '1 while the kill switch is on', (h) => (h.stats().risk.killed ? 1 : 0));
    gauge('chainpilot_daily_halt', '1 while the daily-loss halt is on', (h) => (h.stats().risk.dailyHalted ? 1 : 0));
  };
}
