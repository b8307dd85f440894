/** Reports for intents the engine does not hold are logged, counted and reconciled, never dropped. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lamports, manualClock, seededRandom, type Lamports, type RawAmount, type UnixMs } from '../../src/core/index.js';
import { createEngine } from '../../src/engine/engine.js';
import type { ExecutionSink, Executor, Fill } from '../../src/engine/orders/execution-port.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { fakeFeed } from './fake-feed.js';

const idle = defineStrategy({ id: 'idle', params: z.strictObject({}), rooms: () => [] });
const fill = (signature: string): Fill => ({
  intentId: 'other-run-1',
  side: 'buy',
  mint: 'M',
  decimals: 6,
  solAmount: 1_000_000n as Lamports,
  tokenAmount: 5_000_000n as RawAmount,
  feeLamports: 5_000n as Lamports,
  price: '0.0002',
  filledAt: 1_700_000_000_000 as UnixMs,
  signature,
});

function setup(restored: Fill[] = []) {
  const clock = manualClock(1_700_000_000_000);
  let sink: ExecutionSink | undefined;
  const executor: Executor = {
    start: (s) => {
      sink = s;
      return Promise.resolve();
    },
    submit: () => Promise.reject(new Error('no submits in this test')),
    stop: () => Promise.resolve(),
  };
  const engine = createEngine({
    feed: fakeFeed(clock),
    executor,
    clock,
    random: seededRandom(1),
    strategies: [instantiateStrategy(idle, {}, { id: 'idle', exits: { stopLossBps: 5_000 } })],
    risk: { maxOpenPositions: 5 },
    startingCashLamports: 100_000_000n,
    execution: { slippageBps: 300, priorityFeeLamports: lamports(10_000n), defaultDecimals: 6 },
    restoredFills: restored.map((f) => ({ strategyId: 'idle', fill: f })),
  });
  return { engine, clock, report: (r: Parameters<ExecutionSink>[0]) => sink!(r) };
}

describe('reports for intents the engine does not hold', () => {
  it('reconciles an attributed fill into the portfolio and counts it', async () => {
    const t = setup();
    await t.engine.start();
    t.report({ type: 'filled', intentId: 'other-run-1', at: t.clock.now(), fill: fill('sig-a'), strategyId: 'idle' });
    expect(t.engine.portfolio.position('idle', 'M')?.tokenRaw).toBe(5_000_000n);
    expect(t.engine.stats.unknownReports).toBe(1);
    // the same fill again (a stream read twice): counted, not applied twice
    t.report({ type: 'filled', intentId: 'other-run-1', at: t.clock.now(), fill: fill('sig-a'), strategyId: 'idle' });
    expect(t.engine.portfolio.position('idle', 'M')?.tokenRaw).toBe(5_000_000n);
    expect(t.engine.stats.unknownReports).toBe(2);
    await t.engine.stop();
  });

  it('does not apply again a fill restored from the journal at start, and counts reports it cannot attribute', async () => {
    const t = setup([fill('sig-r')]);
    await t.engine.start();
    t.report({ type: 'filled', intentId: 'other-run-1', at: t.clock.now(), fill: fill('sig-r'), strategyId: 'idle' });
    expect(t.engine.portfolio.position('idle', 'M')?.tokenRaw).toBe(5_000_000n);
    t.report({ type: 'filled', intentId: 'x', at: t.clock.now(), fill: fill('sig-b') });
    t.report({ type: 'expired', intentId: 'y', at: t.clock.now() });
    expect(t.engine.portfolio.position('idle', 'M')?.tokenRaw).toBe(5_000_000n);
    expect(t.engine.stats.unknownReports).toBe(3);
    await t.engine.stop();
  });
});
