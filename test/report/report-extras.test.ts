/**
 * The report's breakdowns from known trades: exits grouped by rule (never by the reason's prices),
 * per day, week and month in UTC, per token with the middle of a long table summed in one row,
 * durations of winners and losers, streaks in closing order, exposure at the samples, and the
 * per-hour return distribution of a run too short for annualised ratios.
 */
import { describe, expect, it } from 'vitest';
import { computeReportExtras, exitRuleOf } from '../../src/research/report/report-extras.js';
import type { ReportTrade } from '../../src/research/report/report-types.js';
import { hourlyReturns } from '../../src/research/report/short-run-metrics.js';

const T0 = Date.UTC(2026, 10, 29, 22, 0, 0); // a Sunday, 22:00 UTC
const MIN = 60_000;
const H = 3_600_000;

let id = 0;
function trade(mint: string, openedAt: number, holdMs: number, pnlSol: string, exitReason: string, status: 'closed' | 'open' = 'closed'): ReportTrade {
  return {
    id: ++id,
    strategyId: 's',
    mint,
    openedAt,
    closedAt: status === 'closed' ? openedAt + holdMs : null,
    holdMs,
    buySol: '0.1',
    sellSol: '0',
    feesSol: '0.001',
    pnlSol,
    returnPct: 0,
    exitReason,
    status,
  };
}

describe('report breakdowns', () => {
  it('names the rule of every exit reason the exit manager writes', () => {
    expect(exitRuleOf('take profit 1.4x (level 1)')).toBe('take profit level 1');
    expect(exitRuleOf('take profit 2x (level 2)')).toBe('take profit level 2');
    expect(exitRuleOf('stop loss 2000 bps below entry 0.00000123')).toBe('stop loss');
    expect(exitRuleOf('trailing stop 1500 bps below high 0.000002')).toBe('trailing stop');
    expect(exitRuleOf('time stop after 600000 ms')).toBe('time stop');
    expect(exitRuleOf('safety exit: bundlers 45 above 40')).toBe('safety exit');
    expect(exitRuleOf('manual close from the dashboard')).toBe('manual');
    expect(exitRuleOf('momentum faded')).toBe('strategy');
  });

  it('groups, counts and sums exactly', () => {
    const trades = [
      trade('A', T0, 5 * MIN, '0.02', 'take profit 1.4x (level 1)'), // closes Sunday 22:05
      trade('A', T0 + 10 * MIN, 20 * MIN, '0.03', 'take profit 1.3x (level 1)'),
      trade('B', T0 + 40 * MIN, 30 * MIN, '-0.01', 'stop loss 2000 bps below entry 0.1'), // closes 23:10
      trade('C', T0 + 2 * H, 10 * MIN, '-0.02', 'trailing stop 1500 bps below high 0.2'), // Monday 00:10: another day and week
      trade('C', T0 + 3 * H, 40 * MIN, '-0.005', 'time stop after 600000 ms'),
      trade('D', T0 + 4 * H, 60 * MIN, '0.1', 'safety exit: dev_holding 30 above 20'),
      trade('E', T0 + 5 * H, 60 * MIN, '0.07', '(open at end)', 'open'),
    ];
    const equity: [number, bigint][] = [];
    for (let t = T0; t <= T0 + 6 * H; t += 30 * MIN) equity.push([t, 10_000_000_000n + BigInt((t - T0) / MIN) * 1_000_000n]);
    const x = computeReportExtras({ trades, equity, startedAt: T0, endedAt: T0 + 6 * H, sampleMs: 30 * MIN });

    expect(x.byExitRule).toEqual([
      { key: 'take profit level 1', trades: 2, wins: 2, pnlSol: '0.05' },
      { key: 'safety exit', trades: 1, wins: 1, pnlSol: '0.1' },
      { key: 'stop loss', trades: 1, wins: 0, pnlSol: '-0.01' },
      { key: 'time stop', trades: 1, wins: 0, pnlSol: '-0.005' },
      { key: 'trailing stop', trades: 1, wins: 0, pnlSol: '-0.02' },
    ]);
    expect(x.byPeriod.day).toEqual([
      { key: '2026-11-29', trades: 3, wins: 2, pnlSol: '0.04' },
      { key: '2026-11-30', trades: 3, wins: 1, pnlSol: '0.075' },
    ]);
    expect(x.byPeriod.week.map((w) => w.key)).toEqual(['week of 2026-11-23', 'week of 2026-11-30']);
    expect(x.byPeriod.month).toEqual([{ key: '2026-11', trades: 6, wins: 3, pnlSol: '0.115' }]);
    // Per token: open trades count, sorted by PnL.
    expect(x.byToken.map((t) => [t.key, t.trades, t.pnlSol, t.feesSol])).toEqual([
      ['D', 1, '0.1', '0.001'],
      ['E', 1, '0.07', '0.001'],
      ['A', 2, '0.05', '0.002'],
      ['B', 1, '-0.01', '0.001'],
      ['C', 2, '-0.025', '0.002'],
    ]);
    expect(x.durations.winners).toEqual({ count: 3, meanMs: 28 * MIN + 20_000, medianMs: 20 * MIN, maxMs: 60 * MIN });
    expect(x.durations.losers).toEqual({ count: 3, meanMs: Math.round((80 * MIN) / 3), medianMs: 30 * MIN, maxMs: 40 * MIN });
    expect(x.streaks).toEqual({ longestWin: 2, longestLoss: 3 });
    // At T0 + 30 min A's second trade has just closed and B is not open yet; at 1h B is; at 5h30 only E (open at the end).
    expect(x.exposure.find(([at]) => at === T0 + 30 * MIN)).toEqual([T0 + 30 * MIN, 0, 0]);
    expect(x.exposure.find(([at]) => at === T0 + H)).toEqual([T0 + H, 1, 0.1]);
    expect(x.exposure.find(([at]) => at === T0 + 5.5 * H)).toEqual([T0 + 5.5 * H, 1, 0.1]);
    expect(x.hourly.hours).toBe(6);
  });

  it('sums the middle of a long per-token table into one row and keeps the 8 best and 8 worst', () => {
    const trades = Array.from({ length: 30 }, (_, i) =>
      trade(`M${String(i).padStart(2, '0')}`, T0 + i * MIN, MIN, String((i - 10) / 100), 'time stop after 1 ms'),
    );
    const x = computeReportExtras({ trades, equity: [[T0, 1n]], startedAt: T0, endedAt: T0 + H, sampleMs: MIN });
    expect(x.byToken.length).toBe(17);
    expect(x.byToken[0]!.key).toBe('M29');
    expect(x.byToken[16]!.key).toBe('M00');
    expect(x.byToken[8]).toMatchObject({ key: '14 other tokens', trades: 14, pnlSol: '0.63' }); // (−2 + … + 11) / 100
  });

  it('keeps hourly returns unrounded: returns below 1e-6 % are not truncated to zero', () => {
    // 1 000 SOL moving by a few lamports an hour: +4, −2, +6 lamports on 10^12 are 4e-10 %, −2e-10 %, 6e-10 %.
    const E = 1_000_000_000_000n;
    const equity: [number, bigint][] = [
      [T0, E],
      [T0 + H, E + 4n],
      [T0 + 2 * H, E + 2n],
      [T0 + 3 * H, E + 8n],
    ];
    const h = hourlyReturns(equity, T0, H);
    expect(h.hours).toBe(3);
    expect(h.meanPct! * 1e10).toBeCloseTo(2.666666666665333, 9);
    expect(h.worstPct! * 1e10).toBeCloseTo(-1.999999999992, 9);
    expect(h.bestPct! * 1e10).toBeCloseTo(5.999999999988, 9);
    expect(h.positivePct).toBeCloseTo(66.667, 2);
    // Per-sample returns 4e-12, −2e-12, 6e-12: mean 2.6667e-12 / sd 4.1633e-12, one sample an hour.
    expect(h.hourlySharpe).toBeCloseTo(0.6405126152214571, 6);
  });

  it('counts no zero-length return in the hourly Sharpe when the run ends on a sample instant', () => {
    // Samples every hour and once more at the end (3 h, a multiple of the sample): the returns are
    // +1 %, −1 %, +2 % (Sharpe 0.01333 / 0.01528 × √1), as without the repeated closing sample.
    const equity: [number, bigint][] = [
      [T0, 100_000_000_000n],
      [T0 + H, 101_000_000_000n],
      [T0 + 2 * H, 99_990_000_000n],
      [T0 + 3 * H, 101_989_800_000n],
    ];
    const once = hourlyReturns(equity, T0, H).hourlySharpe;
    expect(once).toBeCloseTo(0.4364357804719848, 9);
    expect(hourlyReturns([...equity, [T0 + 3 * H, 101_989_800_000n]], T0, H).hourlySharpe).toBeCloseTo(0.4364357804719848, 9);
  });

  it('gives a per-hour distribution for a run shorter than a day', () => {
    // Equity +1 % in hour 1, −2 % in hour 2, +3 % in hour 3, sampled every 10 minutes.
    const marks = [100n, 101n, 98n, 101n].map((v) => v * 100_000_000n);
    const equity: [number, bigint][] = [];
    for (let k = 0; k <= 18; k++) equity.push([T0 + k * 10 * MIN, marks[Math.ceil(k / 6)]!]);
    const h = hourlyReturns(equity, T0, 10 * MIN);
    expect(h.hours).toBe(3);
    expect(h.worstPct).toBeCloseTo(-2.9703, 3);
    expect(h.bestPct).toBeCloseTo(3.0612, 3);
    expect(h.positivePct).toBeCloseTo(66.667, 2);
    expect(h.hourlySharpe).not.toBeNull();
  });
});
