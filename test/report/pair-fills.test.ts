import { describe, expect, it } from 'vitest';
import { formatDriftSummary, pairFills } from '../../src/research/backtest/pair-fills.js';

const intent = (id: string, at: number, mint = 'M', side = 'buy', strategyId = 's'): string =>
  JSON.stringify({ kind: 'intent', at, intentId: id, strategyId, side, mint, amountIn: '100', referencePrice: null, reason: 'r' });
const fill = (id: string, at: number, sol: string, tokens: string, extra: Record<string, string> = {}, side = 'buy'): string =>
  JSON.stringify({
    kind: 'fill',
    at,
    intentId: id,
    strategyId: 's',
    side,
    mint: 'M',
    solAmount: sol,
    tokenAmount: tokens,
    feeLamports: '110000',
    price: '1',
    ...extra,
  });
const unfilled = (id: string, at: number, outcome: string, code: string): string =>
  JSON.stringify({ kind: 'unfilled', at, intentId: id, strategyId: 's', outcome, code, reason: 'x', feeLamports: '0' });
const denied = (at: number, code: string): string =>
  JSON.stringify({ kind: 'denied', at, strategyId: 's', side: 'buy', mint: 'M', amountIn: '100', code, reason: 'x' });
const log = (...lines: string[]): string => `${lines.join('\n')}\n`;

describe('pairFills', () => {
  it('pairs by the drawn id without the live run prefix and measures drift without rent', () => {
    const live = log(intent('int_1a2b3c4d_A', 1000), fill('int_1a2b3c4d_A', 7000, '102039280', '100', { rentLamports: '2039280' }));
    const bt = log(intent('int_A', 1000), fill('int_A', 1250, '99000000', '100'));
    const v = pairFills(live, bt);
    expect(v.summary).toMatchObject({ liveFills: 1, backtestFills: 1, pairedFills: 1, pairedPct: 100, pairedBy: { id: 1, decision: 0, occurrence: 0 } });
    // 100,000,000 / 99,000,000 − 1 = 101.0101... bps: the rent is not part of the price compared.
    expect(v.pairs[0]!.priceDriftBps).toBeCloseTo(101.0101, 3);
    expect(v.summary.latencyMs).toEqual({ liveMedian: 6000, backtestMedian: 250 });
    expect(v.summary.pairedRentLamports).toEqual({ live: '2039280', backtest: '0' });
    expect(v.summary.pairedFeesLamports).toEqual({ live: '110000', backtest: '110000' });
  });

  it('pairs by decision once the ids part ways, and reports outcome differences by code both ways', () => {
    const live = log(
      intent('int_1a2b3c4d_A', 1000),
      unfilled('int_1a2b3c4d_A', 1100, 'rejected', 'LIVE_SPEND_CAP'),
      intent('int_1a2b3c4d_B', 2000),
      fill('int_1a2b3c4d_B', 2500, '100', '10'),
      denied(3000, 'RISK_MAX_POSITIONS'),
      intent('int_1a2b3c4d_C', 4000),
      fill('int_1a2b3c4d_C', 4500, '100', '10'),
    );
    // The backtest filled A (so drew another id for B), refused B, filled the decision live denied, and never decided C.
    const bt = log(
      intent('int_A', 1000),
      fill('int_A', 1250, '100', '10'),
      denied(2000, 'RISK_MAX_POSITIONS'),
      intent('int_X', 3000),
      fill('int_X', 3250, '100', '10'),
    );
    const v = pairFills(live, bt);
    expect(v.summary.pairedBy).toEqual({ id: 1, decision: 2, occurrence: 0 });
    expect(v.summary.filledLiveOnly).toEqual([
      { code: 'ABSENT', count: 1 },
      { code: 'RISK_MAX_POSITIONS', count: 1 },
    ]);
    expect(v.summary.filledBacktestOnly).toEqual([
      { code: 'LIVE_SPEND_CAP', count: 1 },
      { code: 'RISK_MAX_POSITIONS', count: 1 },
    ]);
    expect(v.summary.pairedFills).toBe(0);
    expect(formatDriftSummary(v.summary)).toContain('0 of 2 live fills paired');
  });

  it('pairs the remaining intents of one strategy, side and token by occurrence', () => {
    const live = log(intent('int_1a2b3c4d_A', 1000), fill('int_1a2b3c4d_A', 1500, '100', '10'));
    const bt = log(intent('int_Z', 1200), fill('int_Z', 1450, '100', '10'));
    const v = pairFills(live, bt);
    expect(v.summary.pairedBy.occurrence).toBe(1);
    expect(v.pairs[0]!.priceDriftBps).toBe(0);
  });
});
