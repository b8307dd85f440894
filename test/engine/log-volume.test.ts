/**
 * Log volume under repeated refusals (issue 29: a strategy denied 11,527 times in 60 s wrote
 * 3.2 MB of "order denied" lines). Identical denials and executor refusals are summarised in the
 * log, one line per kind per minute of the run clock with the count held back, while the stats
 * (metrics, summary) and the decision log count every one.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChainpilotError, createLogger, createRedactor, lamports, manualClock, seededRandom } from '../../src/core/index.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { createEngine } from '../../src/engine/engine.js';
import type { Executor } from '../../src/engine/orders/execution-port.js';
import { createRepeatLimiter } from '../../src/engine/logs/repeat-limiter.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { fuzzParams } from '../helpers/fuzz.js';
import { fakeFeed } from './fake-feed.js';
import { priceFrame, wire } from './wire.js';

const SOL = 1_000_000_000n;

/** Buys `lamports` of every launched token. */
const buyer = (lamportsEach: bigint) =>
  defineStrategy({
    id: 'spammer',
    params: z.strictObject({}),
    rooms: () => ['latest'],
    onLaunch(e, ctx) {
      ctx.buy({ mint: e.mint, lamports: lamportsEach, reason: 'every launch' });
    },
  });

function setup(lamportsEach: bigint, executor: Executor) {
  const clock = manualClock(1_700_000_000_000);
  const feed = fakeFeed(clock);
  const decisions = memoryDecisionLog();
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const log = createLogger({ redactor: createRedactor(), destination, level: 'info' });
  const engine = createEngine({
    feed,
    executor,
    clock,
    random: seededRandom(3),
    strategies: [instantiateStrategy(buyer(lamportsEach), {}, {})],
    risk: { maxTradeLamports: lamports(SOL), maxOpenPositions: 1_000_000 },
    startingCashLamports: 1_000_000n * SOL,
    execution: { slippageBps: 500, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    decisions: decisions.sink,
    log,
  });
  const launch = (mint: string): void => {
    engine.ingest(wire(`price:token:${mint}`, priceFrame(0.0001, { pool: `${mint}-curve` }), clock.now()));
    feed.push('latest', { token: { mint, symbol: mint, name: mint, decimals: 6 }, pools: [{ market: 'venue_a', poolId: `${mint}-curve` }] });
  };
  const logged = (text: string): string[] => lines.filter((l) => l.includes(text));
  return { clock, decisions, engine, launch, logged };
}

const idle: Executor = { start: () => Promise.resolve(), submit: () => Promise.resolve(), stop: () => Promise.resolve() };

describe('repeated denials in the log', () => {
  it('10,000 identical risk denials in 2 minutes write 2 log lines, while the stats and the decision log count all 10,000', async () => {
    const t = setup(5n * SOL, idle);
    await t.engine.start();
    for (let i = 0; i < 10_000; i++) {
      t.launch(`M${i}`);
      t.clock.advance(12); // 120 s of run clock in all
    }
    expect(t.engine.stats.denialsByCode.get('RISK_TRADE_SIZE')).toBe(10_000);
    expect(t.engine.stats.summary().refusalsByCode).toEqual({ RISK_TRADE_SIZE: 10_000 });
    expect(t.decisions.lines.filter((l) => l.includes('"kind":"denied"'))).toHaveLength(10_000);
    const lines = t.logged('order denied');
    expect(lines).toHaveLength(2);
    const second = JSON.parse(lines[1]!) as { repeated: number; msg: string; code: string };
    expect(second.code).toBe('RISK_TRADE_SIZE');
    expect(second.repeated).toBe(4_999); // the minute's other denials, held back and counted here
    expect(second.msg).toContain('and 4999 more RISK_TRADE_SIZE denial(s) of spammer held back');
    await t.engine.stop();
  });

  it("the executor's refusals (the live rails') are counted by code in the summary and summarised in the log", async () => {
    const refusing: Executor = {
      ...idle,
      submit: () => Promise.reject(new ChainpilotError('LIVE_SPEND_CAP_DAY', "the intent would take the day's spend over the cap", { retry: 'not_retryable' })),
    };
    const t = setup(SOL / 10n, refusing);
    await t.engine.start();
    for (let i = 0; i < 171; i++) {
      t.launch(`M${i}`);
      await Promise.resolve(); // the refusal is reported from the submit's promise
      t.clock.advance(100);
    }
    await new Promise((r) => setImmediate(r));
    const s = t.engine.stats.summary();
    expect(s.rejections).toBe(171);
    expect(s.refusalsByCode).toEqual({ LIVE_SPEND_CAP_DAY: 171 });
    expect(t.decisions.lines.filter((l) => l.includes('"outcome":"rejected"'))).toHaveLength(171);
    expect(t.logged('intent rejected').length).toBeLessThanOrEqual(1 + Math.ceil((171 * 100) / 60_000));
    await t.engine.stop();
  });
});

describe('createRepeatLimiter', () => {
  it('writes at most one line per kind per window, and every held line is reported by the next one written', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ kind: fc.constantFrom('a', 'b', 'c', 'd'), advanceMs: fc.integer({ min: 0, max: 30_000 }) }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 6 }),
        (steps, maxKinds) => {
          const clock = manualClock(0);
          const limiter = createRepeatLimiter(clock, 60_000, maxKinds);
          const lastWritten = new Map<string, number>();
          const total = new Map<string, number>();
          const accounted = new Map<string, number>();
          for (const s of steps) {
            clock.advance(s.advanceMs);
            total.set(s.kind, (total.get(s.kind) ?? 0) + 1);
            const r = limiter.admit(s.kind);
            if (r.write) {
              const last = lastWritten.get(s.kind);
              // a kind still tracked is written at most once per window (a forgotten one may write early)
              if (maxKinds >= 4 && last !== undefined) expect(clock.now() - last).toBeGreaterThanOrEqual(60_000);
              lastWritten.set(s.kind, clock.now());
              accounted.set(s.kind, (accounted.get(s.kind) ?? 0) + 1 + r.held);
            } else expect(r.held).toBe(0);
          }
          // nothing is reported twice: written lines plus what they report never exceed what happened
          for (const [k, n] of accounted) expect(n).toBeLessThanOrEqual(total.get(k)!);
        },
      ),
      fuzzParams({ numRuns: 200, seed: 2908 }),
    );
  });
});
