/**
 * The calibrated paper model (`paper.model`): latencies drawn from live's with the run's seed, the
 * fee live pays, rent for the token account the first buy opens, our own fills moving the reserves
 * until the next observed tick, and failures at the live rates with the live codes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bps, Decimal, lamports, manualClock, seededRandom, type UnixMs } from '../../src/core/index.js';
import type { ExecutionReport, Fill, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { createMarketView } from '../../src/engine/market/market-view.js';
import { DEFAULT_FILL_MODEL, isWorse } from '../../src/executors/paper/fill-model.js';
import { createPaperExecutor, type PaperModel } from '../../src/executors/paper/paper-executor.js';
import { orderIntent } from '../helpers/intents.js';

const MINT = 'So11111111111111111111111111111111111111112';
const buy = (id: string, spend = 100_000_000n): OrderIntent =>
  orderIntent({
    id,
    strategyId: 's',
    side: 'buy',
    mint: MINT,
    decimals: 6,
    spendLamports: spend,
    slippageBps: bps(5_000),
    priorityFeeLamports: lamports(100_000n),
    referencePrice: undefined,
    createdAt: 0 as UnixMs,
    reason: 't',
  });

const model = (o: Partial<PaperModel> = {}): PaperModel => ({
  latencyMs: [6_000],
  rentLamports: lamports(2_039_280n),
  ownImpact: true,
  simulationFailureRate: 0,
  onChainFailureRate: 0,
  ...o,
});

function setup(m: PaperModel, seed = 1) {
  const clock = manualClock(0 as UnixMs);
  const view = createMarketView();
  const tick = (at: number, sol = 30_000_000_000n, token = 1_000_000_000_000_000n): void =>
    view.observe({
      type: 'price',
      room: `price:token:${MINT}`,
      receivedAt: at as UnixMs,
      origin: 'live',
      mint: MINT,
      price: '0.00003',
      priceUsd: undefined,
      aggregated: false,
      pool: 'P',
      market: 'venue_a',
      liquidityUsd: undefined,
      solReserveLamports: sol,
      tokenReserveRaw: token,
      poolFeeBps: 100,
      at: at as UnixMs,
    });
  const reports: ExecutionReport[] = [];
  const ex = createPaperExecutor({
    clock,
    market: view,
    latencyMs: 250,
    fillModel: { ...DEFAULT_FILL_MODEL, feeLamports: lamports(110_000n) },
    model: m,
    random: seededRandom(seed).fork('paper-fills'),
  });
  return { clock, tick, reports, ex, start: () => ex.start((r) => reports.push(r)) };
}

const fills = (reports: readonly ExecutionReport[]): Fill[] => reports.flatMap((r) => (r.type === 'filled' ? [r.fill] : []));

describe('the calibrated paper model', () => {
  it('charges rent for the first buy of a token only, pays the calibrated fee, and lets our own buys move the reserves until the next tick', async () => {
    const h = setup(model());
    await h.start();
    h.tick(0);
    await h.ex.submit(buy('a'));
    await h.ex.submit(buy('b'));
    h.clock.advance(6_000);
    const [a, b] = fills(h.reports);
    expect(a!.rentLamports).toBe(2_039_280n);
    expect(a!.solAmount).toBe(100_000_000n + 2_039_280n);
    expect(b!.rentLamports).toBeUndefined();
    expect(a!.feeLamports).toBe(110_000n);
    // The second buy meets the reserves the first left: fewer tokens for the same SOL.
    expect(b!.tokenAmount).toBeLessThan(a!.tokenAmount);
    // A new observed tick replaces our own impact: the same buy fills as the first did.
    h.tick(6_001);
    await h.ex.submit(buy('c'));
    h.clock.advance(6_000);
    expect(fills(h.reports)[2]!.tokenAmount).toBe(a!.tokenAmount);
  });

  it('draws each latency from the calibration with the seed, the same way twice', async () => {
    const run = async (seed: number): Promise<number[]> => {
      const h = setup(model({ latencyMs: [1_000, 2_000, 3_000, 4_000, 5_000] }), seed);
      await h.start();
      h.tick(0);
      for (let i = 0; i < 12; i++) await h.ex.submit(buy(`i${i}`, 1_000_000n));
      h.clock.advance(10_000);
      return fills(h.reports).map((f) => f.filledAt);
    };
    const a = await run(3);
    expect(a).toEqual(await run(3));
    expect(new Set(a).size).toBeGreaterThan(1);
    for (const t of a) expect([1_000, 2_000, 3_000, 4_000, 5_000]).toContain(t);
  });

  it("with a landing block, lands each fill at the start of a drawn number of slots after the decision's, on the calibrated grid, and draws as a latency would", async () => {
    // slots start at 100 modulo 400: ..., 100, 500, 900, 1300, ...; one slot count to draw: each fill at its decision's next slot start
    const h = setup(model({ latencyMs: [9_999], landing: { slotMs: 400, phaseMs: 100, slots: [1] } }));
    await h.start();
    h.tick(0);
    await h.ex.submit(buy('a', 1_000_000n)); // at 0, in the slot started at -300: lands at 100
    h.clock.advance(100);
    await h.ex.submit(buy('b', 1_000_000n)); // at 100, a slot start: lands at the next, 500
    h.clock.advance(250);
    await h.ex.submit(buy('c', 1_000_000n)); // at 350: 500 too
    h.clock.advance(1_000);
    expect(fills(h.reports).map((f) => [f.intentId, f.filledAt])).toEqual([
      ['a', 100],
      ['b', 500],
      ['c', 500],
    ]);
    // two and three slots: 900 or 1,300 for a decision at 350, drawn with the seed in place of the latency
    const run = async (seed: number): Promise<number[]> => {
      const r = setup(model({ latencyMs: [9_999], landing: { slotMs: 400, phaseMs: 100, slots: [2, 3] } }), seed);
      await r.start();
      r.tick(0);
      r.clock.advance(350);
      for (let i = 0; i < 12; i++) await r.ex.submit(buy(`i${i}`, 1_000_000n));
      r.clock.advance(2_000);
      return fills(r.reports).map((f) => f.filledAt);
    };
    const drawn = await run(3);
    expect(drawn).toEqual(await run(3));
    expect(new Set(drawn)).toEqual(new Set([900, 1_300]));
  });

  it('with report times, fills at the landing slot but reports the fill when live heard of it; a stop reports a landed fill at once', async () => {
    const h = setup(model({ latencyMs: [9_999], landing: { slotMs: 400, phaseMs: 0, slots: [1], reportMs: [800] } }));
    await h.start();
    h.tick(0);
    await h.ex.submit(buy('a', 1_000_000n)); // lands at 400, reported at 800
    h.clock.advance(400);
    expect(fills(h.reports)).toEqual([]);
    expect(h.ex.inFlight()).toBe(1);
    h.tick(401, 60_000_000_000n); // the pool moved after the landing: the fill keeps the landing's price
    h.clock.advance(400);
    const [a] = fills(h.reports);
    expect(h.reports.at(-1)).toMatchObject({ type: 'filled', at: 800 });
    expect(a!.filledAt).toBe(400);
    const landedAlone = setup(model({ latencyMs: [9_999], landing: { slotMs: 400, phaseMs: 0, slots: [1] } }));
    await landedAlone.start();
    landedAlone.tick(0);
    await landedAlone.ex.submit(buy('a', 1_000_000n));
    landedAlone.clock.advance(400);
    expect(fills(landedAlone.reports)[0]!.tokenAmount).toBe(a!.tokenAmount);
    // landed, not yet heard of, when the executor stops: reported then, not expired
    await h.ex.submit(buy('b', 1_000_000n)); // at 800: lands at 1,200, reported at 1,600
    h.clock.advance(400);
    await h.ex.stop();
    expect(h.reports.at(-1)).toMatchObject({ type: 'filled', intentId: 'b', at: 1_200 });
  });

  it('fails at the calibrated rates with the live codes: refused at simulation, or failed on chain with the fee paid', async () => {
    const sim = setup(model({ simulationFailureRate: 1 }));
    await sim.start();
    sim.tick(0);
    await sim.ex.submit(buy('a'));
    sim.clock.advance(6_000);
    expect(sim.reports.at(-1)).toMatchObject({ type: 'rejected', code: 'LIVE_INSPECTION_SIMULATION' });

    const chain = setup(model({ onChainFailureRate: 1 }));
    await chain.start();
    chain.tick(0);
    await chain.ex.submit(buy('a'));
    chain.clock.advance(6_000);
    expect(chain.reports.at(-1)).toMatchObject({ type: 'failed', code: 'LIVE_FAILED_ON_CHAIN', feeLamports: 110_000n });
  });
});

describe('the slippage check (isWorse)', () => {
  // the exact rule: a buy above ref × (1 + bps/10,000), a sell below ref × (1 − bps/10,000)
  const exact = (side: 'buy' | 'sell', fill: string, ref: string, slippageBps: number): boolean => {
    const f = new Decimal(fill).times(10_000);
    const r = new Decimal(ref).times(side === 'buy' ? 10_000 + slippageBps : 10_000 - slippageBps);
    return side === 'buy' ? f.gt(r) : f.lt(r);
  };
  const decimalText = fc.tuple(fc.stringMatching(/^[0-9]{1,6}$/), fc.stringMatching(/^[0-9]{1,45}$/)).map(([w, f]) => `${w}.${f}`);

  it('decides as the exact rule on any prices, exactly at and around the tolerance included', () => {
    fc.assert(
      fc.property(fc.constantFrom('buy' as const, 'sell' as const), decimalText, decimalText, fc.integer({ min: 0, max: 20_000 }), (side, fill, ref, b) => {
        // a fill exactly at the tolerance, and one a last digit past it
        const edge = new Decimal(ref).times(side === 'buy' ? 10_000 + b : 10_000 - b).div(10_000);
        const cases = [fill, edge.toFixed(), edge.plus('1e-45').toFixed(), edge.minus('1e-45').abs().toFixed()];
        return cases.every((f) => isWorse(side, f, ref, b) === exact(side, f, ref, b));
      }),
      { numRuns: 2000 },
    );
  });
});
