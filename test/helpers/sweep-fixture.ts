/** A small sweep output for the sweep page's tests (test/report/sweep-html.test.ts, test/e2e/sweep-browser.test.ts), and window metrics for the search tests. */
import type { WindowMetrics } from '../../src/engine/strategy/param-space.js';
import type { SweepOutput } from '../../src/research/report/sweep-output.js';

/** A window's metrics: a dull middle (10 trades, profit factor 1, nothing earned) with `over` applied. */
export const windowMetrics = (over: Partial<WindowMetrics>): WindowMetrics => ({
  netPnlSol: '0',
  returnPct: 0,
  trades: 10,
  winRatePct: 50,
  profitFactor: 1,
  expectancySol: '0',
  maxDrawdownPct: 1,
  sharpe: null,
  hourlySharpe: null,
  feesSol: '0',
  ...over,
});

const metrics = (over: Partial<WindowMetrics>): WindowMetrics & { fingerprint: string } => ({ ...windowMetrics(over), fingerprint: 'f' });

/** Three cells ranked 2, 0, 1 by profit factor; cell 1's is n/a. */
export function sweepFixture(): SweepOutput {
  const cell = (index: number, tp: number, m: Partial<WindowMetrics>, score: number | null) => ({
    index,
    params: { 'exits.takeProfit': tp },
    windows: { full: metrics(m) },
    scores: { full: score },
  });
  return {
    kind: 'chainpilot-sweep',
    format: 1,
    deployment: 'd.yaml',
    search: { method: 'grid', budget: null, seed: 1 },
    objective: { name: 'profitFactor', minTrades: 1 },
    walkForward: null,
    axes: [{ path: 'exits.takeProfit', values: [2, 10, 3] }],
    windows: [{ name: 'full', fromMs: null, toMs: null }],
    folds: [],
    headline: { outOfSample: false, netPnlSol: '0.12', trades: 10, feesSol: '0.01', foldsPositive: 0 },
    recordings: ['r'],
    cells: [
      cell(0, 2, { netPnlSol: '-0.5', profitFactor: 1.25, trades: 9 }, 1.25),
      cell(1, 10, { netPnlSol: '0.000000001', profitFactor: null, trades: 100 }, null),
      cell(2, 3, { netPnlSol: '0.12', profitFactor: 1.5, trades: 10 }, 1.5),
    ],
    rankWindow: 'full',
    ranking: [2, 0, 1],
  };
}
