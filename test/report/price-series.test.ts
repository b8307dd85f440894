/**
 * A backtest keeps each token's price samples as numbers (PriceSeries), no longer as [time, text]
 * pairs: the chart points must be exactly those the pairs gave (a sample kept whenever the exact
 * text changed, charted as `Number(text)`), for prices whose texts differ while their numbers do not.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/index.js';
import { computeReport, type ReportInput } from '../../src/research/report/compute-report.js';
import { PriceSeries } from '../../src/research/report/price-series.js';

describe('PriceSeries', () => {
  it('gives the chart points the [time, text] samples gave, past its first growth', () => {
    const rnd = seededRandom(3);
    const series = new PriceSeries();
    const pairs: [number, string][] = [];
    let p = '0.0000000713535226773875646998843203538472893';
    for (let k = 0; k < 500; k++) {
      const r = rnd.next();
      // the same text again, a new number, or a longer text of the same double (a price derived from USD)
      if (r < 0.3) p = String((1 + rnd.next()) * 1e-7);
      else if (r < 0.4) p = `${p}0`;
      const at = 1_000 + k * 5_000;
      series.push(at, p);
      if (pairs[pairs.length - 1]?.[1] !== p) pairs.push([at, p]);
    }
    expect(series.length).toBe(pairs.length);
    expect(series.length).toBeGreaterThan(16);
    expect(series.points()).toEqual(pairs.map(([at, s]) => [at, Number(s)]));
  });

  it('charts the same report from a series as from the pairs', () => {
    const mint = 'M'.repeat(44);
    const base: Omit<ReportInput, 'prices'> = {
      decisions: [
        { kind: 'intent', at: 10, intentId: 'i1', strategyId: 's', side: 'buy', mint, amountIn: '100', referencePrice: '0.5', reason: 'r' },
        { kind: 'fill', at: 20, intentId: 'i1', strategyId: 's', side: 'buy', mint, solAmount: '100', tokenAmount: '200', feeLamports: '1', price: '0.5' },
      ],
      equity: [
        [0, 1_000n],
        [60_000, 1_001n],
      ],
      openPositions: [],
      startingLamports: 1_000n,
      startedAt: 0,
      endedAt: 60_000,
      sampleMs: 60_000,
      fingerprint: 'f'.repeat(64),
      run: {
        deployment: 'd',
        strategies: [],
        recordings: [],
        chainpilot: 't',
        seed: 1,
        from: 0,
        to: 60_000,
        lines: 0,
        wallMs: 0,
        sampleMs: 60_000,
      } as unknown as ReportInput['run'],
    };
    const pairs: [number, string][] = [
      [0, '0.5'],
      [5_000, '0.55'],
      [10_000, '0.550'],
    ];
    const series = new PriceSeries();
    for (const [at, s] of pairs) series.push(at, s);
    const a = computeReport({ ...base, prices: new Map([[mint, pairs]]) });
    const b = computeReport({ ...base, prices: new Map([[mint, series]]) });
    expect(b.prices).toEqual(a.prices);
    expect(b.prices[0]!.points.length).toBe(3);
  });
});
