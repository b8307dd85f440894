import { describe, expect, it } from 'vitest';
import type { DecisionEntry } from '../../src/engine/logs/decision-log.js';
import { computeMetrics, computeReport, type ReportInput } from '../../src/research/report/compute-report.js';
import { createDrawdownTracker } from '../../src/research/report/drawdown.js';
import type { ReportRun } from '../../src/research/report/report-types.js';

const DAY = 86_400_000;
const run: ReportRun = {
  deployment: 'd',
  strategies: [],
  recordings: [],
  chainpilot: 'test',
  seed: 1,
  from: 0,
  to: 0,
  lines: 0,
  wallMs: 0,
  sampleMs: DAY,
  dataLookups: { exact: 0, misses: 0, fallbackAnswers: 0 },
  feed: {},
  decisionLogSha256: '',
};

const input = (o: Partial<ReportInput>): ReportInput => ({
  decisions: [],
  equity: [],
  prices: new Map(),
  openPositions: [],
  startingLamports: 1_000_000n,
  startedAt: 0,
  endedAt: 4 * DAY,
  sampleMs: DAY,
  minRatioSpanMs: DAY,
  run,
  fingerprint: 'f',
  ...o,
});

const intent = (id: string, at: number, side: 'buy' | 'sell', ref: string | null = null, strategyId = 's', mint = 'M'): DecisionEntry => ({
  kind: 'intent',
  at,
  intentId: id,
  strategyId,
  side,
  mint,
  amountIn: '1',
  referencePrice: ref,
  reason: `${side} ${id}`,
});
const fill = (id: string, at: number, side: 'buy' | 'sell', sol: bigint, price = '1', fee = 0n, strategyId = 's', mint = 'M'): DecisionEntry => ({
  kind: 'fill',
  at,
  intentId: id,
  strategyId,
  side,
  mint,
  solAmount: sol.toString(),
  tokenAmount: '10',
  feeLamports: fee.toString(),
  price,
});

describe('computeReport arithmetic', () => {
  it('computes Sharpe and Sortino of the sampled returns as the hand-computed fixture says', () => {
    // Returns +10 %, −5 %, +10 %, −2 % a day: mean 0.0325, sample sd 0.0788986, downside deviation
    // sqrt((0.05² + 0.02²) / 4) = 0.0269258, annualised by sqrt(365).
    const equity: [number, bigint][] = [
      [0, 1_000_000n],
      [DAY, 1_100_000n],
      [2 * DAY, 1_045_000n],
      [3 * DAY, 1_149_500n],
      [4 * DAY, 1_126_510n],
    ];
    const r = computeReport(input({ equity }));
    expect(r.metrics.sharpe).toBeCloseTo(7.869735124112805, 9);
    expect(r.metrics.sortino).toBeCloseTo(23.06007895431649, 9);
    expect(r.metrics.ratioNote).toBeNull();
  });

  it('counts no zero-length return when the run length is a multiple of the sample (the closing sample stands for its instant)', () => {
    // A backtest samples at every multiple of --sample and once more at the end: a 4-day run at a
    // 1-day sample has two samples at 4 d. The returns stay +10 %, −5 %, +10 %, −2 % (not a fifth 0 %).
    const daily: [number, bigint][] = [
      [0, 1_000_000n],
      [DAY, 1_100_000n],
      [2 * DAY, 1_045_000n],
      [3 * DAY, 1_149_500n],
      [4 * DAY, 1_126_510n],
    ];
    const same = computeReport(input({ equity: [...daily, [4 * DAY, 1_126_510n]] }));
    expect(same.metrics.sharpe).toBeCloseTo(7.869735124112805, 9);
    expect(same.metrics.sortino).toBeCloseTo(23.06007895431649, 9);
    // The stop moved equity at the last instant (1 126 510 → 1 103 520): the closing value is the
    // day's, so the returns are +10 %, −5 %, +10 %, −4 %: Sharpe 0.0325 … mean 0.0275 / sd 0.0727438 × √365.
    const moved = computeReport(input({ equity: [...daily, [4 * DAY, 1_103_520n]] }));
    expect(moved.metrics.sharpe).toBeCloseTo(6.268389316749121, 9);
    expect(moved.metrics.sortino).toBeCloseTo(16.410325422970892, 9);
  });

  it('measures drawdown at every observed point: the largest fall, its percent of the peak and the longest time under water', () => {
    const t = createDrawdownTracker(0, 100n);
    for (const [at, v] of [
      [1, 120n],
      [2, 90n], // 30 below the peak of 120: 25 %
      [3, 130n], // back above after 2 ms under water
      [4, 104n], // 26 below 130: 20 %
      [5, 125n],
    ] as const)
      t.observe(at, v);
    expect(t.result(9)).toEqual({ maxLamports: 30n, maxPct: 25, longestMs: 6 });
    // Sampled every 2 ms the trough at 2 is missed: the tracked drawdown is what the report shows.
    const equity: [number, bigint][] = [
      [0, 100n],
      [2, 90n],
      [4, 104n],
    ];
    const sampled = computeReport(input({ equity, startingLamports: 100n, startedAt: 0, endedAt: 4, sampleMs: 2 }));
    expect(sampled.metrics.maxDrawdownPct).toBe(10);
    const tracked = computeReport(input({ equity, startingLamports: 100n, startedAt: 0, endedAt: 4, sampleMs: 2, drawdown: t.result(9) }));
    expect(tracked.metrics.maxDrawdownPct).toBe(25);
    expect(tracked.metrics.maxDrawdownSol).toBe('0.00000003');
  });

  it('adds the fees of failed transactions that opened no trade to net PnL on their own row and in the strategy table', () => {
    const decisions: DecisionEntry[] = [
      intent('a', 1, 'buy'),
      fill('a', 2, 'buy', 100_000n, '1', 5_000n),
      intent('b', 3, 'sell'),
      fill('b', 4, 'sell', 130_000n, '1', 5_000n),
      intent('c', 5, 'buy', null, 's', 'N'),
      { kind: 'unfilled', at: 6, intentId: 'c', strategyId: 's', outcome: 'failed', code: 'LIVE_FAILED_ON_CHAIN', reason: 'x', feeLamports: '7000' },
    ];
    // Trade: 130,000 − 100,000 − 10,000 = +20,000; the failed buy cost 7,000: net +13,000.
    const r = computeReport(
      input({
        decisions,
        equity: [
          [0, 1_000_000n],
          [7, 1_013_000n],
        ],
        endedAt: 7,
      }),
    );
    expect(r.metrics.tradePnlSol).toBe('0.00002');
    expect(r.metrics.failedFeesSol).toBe('0.000007');
    expect(r.metrics.netPnlSol).toBe('0.000013');
    expect(r.byStrategy).toEqual([expect.objectContaining({ strategyId: 's', pnlSol: '0.000013', failedFeesSol: '0.000007', feesSol: '0.000017' })]);
  });

  it('groups byExitReason by the rule that closed the trade, not one key per price, and prints exit prices at 8 significant digits', () => {
    const sellWhy = (id: string, at: number, mint: string, reason: string): DecisionEntry => ({
      kind: 'intent',
      at,
      intentId: id,
      strategyId: 's',
      side: 'sell',
      mint,
      amountIn: '1',
      referencePrice: null,
      reason,
    });
    const entries = ['0.0000000312345678901234567890123456789012345', '0.0000000298765432109876543210987654321098765', '0.00000004'];
    const decisions: DecisionEntry[] = entries.flatMap((entry, k) => {
      const m = `M${k}`;
      return [
        intent(`b${k}`, 10 * k, 'buy', null, 's', m),
        fill(`b${k}`, 10 * k + 1, 'buy', 1_000n, '1', 0n, 's', m),
        sellWhy(`s${k}`, 10 * k + 2, m, `stop loss 1500 bps below entry ${entry}`),
        fill(`s${k}`, 10 * k + 3, 'sell', 900n, '1', 0n, 's', m),
      ];
    });
    decisions.push(
      intent('b9', 50, 'buy', null, 's', 'T'),
      fill('b9', 51, 'buy', 1_000n, '1', 0n, 's', 'T'),
      sellWhy('s9', 52, 'T', 'take profit 2x (level 1)'),
      fill('s9', 53, 'sell', 2_000n, '1', 0n, 's', 'T'),
    );
    const r = computeReport(input({ decisions, equity: [[0, 1_000_000n]] }));
    expect(r.byExitReason).toEqual([
      { reason: 'stop loss', trades: 3, pnlSol: '-0.0000003' },
      { reason: 'take profit level 1', trades: 1, pnlSol: '0.000001' },
    ]);
    expect(r.trades.map((t) => t.exitReason)).toEqual([
      'stop loss 1500 bps below entry 0.000000031234568',
      'stop loss 1500 bps below entry 0.000000029876543',
      'stop loss 1500 bps below entry 0.00000004',
      'take profit 2x (level 1)',
    ]);
  });

  it('rounds profit factor and slippage half-even instead of truncating them', () => {
    const decisions: DecisionEntry[] = [
      // Trade 1 wins 200 lamports; trade 2 loses 300: profit factor 2/3 = 0.666667 (not 0.666666).
      intent('a', 1, 'buy', null, 's', 'A'),
      fill('a', 2, 'buy', 1_000n, '1', 0n, 's', 'A'),
      intent('b', 3, 'sell', null, 's', 'A'),
      fill('b', 4, 'sell', 1_200n, '1', 0n, 's', 'A'),
      intent('c', 5, 'buy', null, 's', 'B'),
      fill('c', 6, 'buy', 1_000n, '1', 0n, 's', 'B'),
      intent('d', 7, 'sell', null, 's', 'B'),
      fill('d', 8, 'sell', 700n, '1', 0n, 's', 'B'),
      // A buy of 7 lamports at price 2 against a reference of 1 cost 7 × (1 − 1/2) = 3.5 lamports: 4 half-even (3 truncated).
      intent('e', 9, 'buy', '1', 's', 'C'),
      fill('e', 10, 'buy', 7n, '2', 0n, 's', 'C'),
    ];
    const r = computeReport(input({ decisions, equity: [[0, 1_000_000n]] }));
    expect(r.metrics.profitFactor).toBe(0.666667);
    expect(r.metrics.slippageSol).toBe('0.000000004');
  });

  it('computeMetrics (what a sweep cell ranks by) gives exactly the metrics of the whole report, open trades marked and failed fees included', () => {
    const decisions: DecisionEntry[] = [
      intent('a', 1, 'buy', null, 's', 'A'),
      fill('a', 2, 'buy', 1_000n, '1', 5n, 's', 'A'),
      intent('b', 3, 'sell', null, 's', 'A'),
      fill('b', 4, 'sell', 1_200n, '1', 5n, 's', 'A'),
      intent('c', 5, 'buy', '1', 's', 'B'),
      fill('c', 6, 'buy', 1_000n, '2', 5n, 's', 'B'),
      intent('d', 7, 'buy', null, 's', 'C'),
      { kind: 'unfilled', at: 8, intentId: 'd', strategyId: 's', outcome: 'failed', code: 'LIVE_FAILED_ON_CHAIN', reason: 'x', feeLamports: '7000' },
    ];
    const i = input({
      decisions,
      equity: [
        [0, 1_000_000n],
        [5, 1_000_190n],
        [9, 993_500n],
      ],
      endedAt: 9,
      openPositions: [{ strategyId: 's', mint: 'B', valueLamports: 900n }],
    });
    const metrics = computeMetrics(i);
    expect(metrics).toEqual(computeReport(i).metrics);
    expect(metrics.openTrades).toBe(1);
    expect(metrics.trades).toBe(1);
  });
});
