/**
 * The HTML report of a day stays under 320 KB (300 KB before the breakdowns, the live-vs-backtest section and
 * the silent-rooms notice): a synthetic day at the simulator's trade rate with
 * config/paper-sim.yaml (about 140 round trips an hour: 3 360 trades, 6 720 fills), equity sampled
 * every minute, six price charts sampled every 5 s while active. The metrics add up exactly.
 */
import { describe, expect, it } from 'vitest';
import { decimal, seededRandom } from '../../src/core/index.js';
import type { DecisionEntry } from '../../src/engine/logs/decision-log.js';
import { computeReport } from '../../src/research/report/compute-report.js';
import { renderReportHtml } from '../../src/research/report/render-html.js';

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const START = 1_767_225_600_000;
const DAY = 86_400_000;

describe('report size and sums', () => {
  it('renders a day of trades in under 320 KB, with PnL that adds up to the equity change', () => {
    const rnd = seededRandom(9);
    const mint = (): string => Array.from({ length: 44 }, () => B58[Math.floor(rnd.next() * B58.length)]).join('');
    const decisions: DecisionEntry[] = [];
    let cash = 10_000_000_000n;
    const prices = new Map<string, [number, string][]>();
    for (let i = 0; i < 3_360; i++) {
      const m = mint();
      const at = START + Math.floor((i * DAY) / 3_360);
      const buyPrice = (2 + rnd.next()) * 1e-7;
      const sellPrice = buyPrice * (0.8 + rnd.next() * 0.45);
      const tokens = BigInt(Math.floor(0.1 / buyPrice)) * 1_000_000n;
      const sold = BigInt(Math.floor((Number(tokens) * sellPrice) / 1e6));
      const sid = i % 2 ? 'curve-momentum' : 'graduation-sniper';
      decisions.push({
        kind: 'intent',
        at,
        intentId: `b${i}`,
        strategyId: sid,
        side: 'buy',
        mint: m,
        amountIn: '100000000',
        referencePrice: String(buyPrice),
        reason: 'entry',
      });
      decisions.push({
        kind: 'fill',
        at: at + 250,
        intentId: `b${i}`,
        strategyId: sid,
        side: 'buy',
        mint: m,
        solAmount: '100000000',
        tokenAmount: String(tokens),
        feeLamports: '105000',
        price: String(buyPrice),
      });
      decisions.push({
        kind: 'intent',
        at: at + 20_000,
        intentId: `s${i}`,
        strategyId: sid,
        side: 'sell',
        mint: m,
        amountIn: String(tokens),
        referencePrice: String(sellPrice),
        reason: i % 3 ? 'take profit 1.3x (level 1)' : 'stop loss 2000 bps',
      });
      decisions.push({
        kind: 'fill',
        at: at + 20_250,
        intentId: `s${i}`,
        strategyId: sid,
        side: 'sell',
        mint: m,
        solAmount: String(sold),
        tokenAmount: String(tokens),
        feeLamports: '105000',
        price: String(sellPrice),
      });
      cash += sold - 100_000_000n - 210_000n;
      if (i < 6)
        prices.set(
          m,
          Array.from({ length: 5 }, (_, k) => [at + k * 5_000, String(buyPrice * (1 + k / 50))]),
        );
    }
    const equity: [number, bigint][] = Array.from({ length: 1_441 }, (_, k) => [
      START + k * 60_000,
      10_000_000_000n + ((cash - 10_000_000_000n) * BigInt(k)) / 1_440n,
    ]);
    const report = computeReport({
      decisions,
      equity,
      prices,
      openPositions: [],
      startingLamports: 10_000_000_000n,
      startedAt: START,
      endedAt: START + DAY,
      sampleMs: 60_000,
      fingerprint: 'f'.repeat(64),
      run: {
        deployment: 'paper-sim',
        strategies: [],
        recordings: [],
        chainpilot: '0.1.0',
        seed: 1,
        from: START,
        to: START + DAY,
        lines: 0,
        wallMs: 0,
        sampleMs: 60_000,
        dataLookups: { exact: 0, misses: 0, fallbackAnswers: 0 },
        feed: {},
        decisionLogSha256: '',
      },
    });
    expect(report.trades.length).toBe(3_360);
    const html = renderReportHtml(report);
    expect(Buffer.byteLength(html)).toBeLessThan(320 * 1024);

    // Closed trades' PnL sums to the equity change; fees are every fill's fee.
    const sumPnl = report.trades.reduce((a, t) => a.plus(decimal(t.pnlSol)), decimal(0));
    expect(sumPnl.toFixed()).toBe(decimal(report.metrics.netPnlSol).toFixed());
    expect(decimal(report.metrics.netPnlSol).times(1e9).toFixed()).toBe((cash - 10_000_000_000n).toString());
    expect(report.metrics.feesSol).toBe('0.7056');
    expect(report.metrics.trades).toBe(3_360);
    expect(report.metrics.wins + report.metrics.losses).toBe(3_360);
  });
});
