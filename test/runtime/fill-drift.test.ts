import { describe, expect, it } from 'vitest';
import { fillDrift } from '../../src/research/backtest/backtest-job.js';

const fill = (intentId: string, price: string): string =>
  JSON.stringify({ kind: 'fill', at: 1, intentId, strategyId: 's', side: 'buy', mint: 'M', solAmount: '1', tokenAmount: '1', feeLamports: '0', price });

describe('fillDrift', () => {
  it("pairs a live run's fills with the backtest's by intent id without the live run prefix, and measures each in bps", () => {
    const live = [fill('int_1a2b3c4d_000001', '1.01'), fill('int_1a2b3c4d_000002', '0.99'), fill('int_1a2b3c4d_000009', '5')].join('\n');
    const backtest = [fill('int_000001', '1'), fill('int_000002', '1')].join('\n');
    const d = fillDrift(live, backtest);
    expect(d.matched).toBe(2);
    expect(d.meanBps).toBeCloseTo(0, 6);
    expect(d.maxAbsBps).toBeCloseTo(100, 6);
  });

  it("pairs a resumed paper book's ids (int_r2_) and never pairs different ids", () => {
    expect(fillDrift(fill('int_r2_000003', '2'), fill('int_000003', '1')).matched).toBe(1);
    expect(fillDrift(fill('int_1a2b3c4d_000003', '2'), fill('int_000004', '1')).matched).toBe(0);
  });
});
