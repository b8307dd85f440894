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
import { DEFAULT_FILL_MODEL, isWorse, modelFill, reservesFor } from '../../src/executors/paper/fill-model.js';
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
    // reported after the market's lines of the report's instant, which live's engine has before its status poll's answer
    expect(fills(h.reports)).toEqual([]);
    h.tick(800);
    h.clock.advance(1);
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
    await h.ex.submit(buy('b', 1_000_000n)); // at 801: lands at 1,200, reported at 1,601
    h.clock.advance(399);
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

  it("inspects each swap at its decision, as live: a quote below the intent's least output is refused at once with no fee and nothing sent; a quote that passes is what the landing's least output is measured from", async () => {
    const landing = { slotMs: 400, phaseMs: 0, slots: [1], reportMs: [800] };
    // 30 SOL against 1e9 tokens: 0.00000003 SOL per token; 800 bps of slippage from that reference
    const withRef = (id: string): OrderIntent => ({ ...buy(id, 1_000_000n), referencePrice: '0.00000003', slippageBps: bps(800) });
    const refused = setup(model({ latencyMs: [9_999], landing }));
    await refused.start();
    refused.tick(0);
    await refused.ex.submit(withRef('a'));
    refused.tick(0, 40_000_000_000n); // later in the same instant the pool is a third dearer: the ledger live inspects holds it
    refused.clock.advance(1);
    expect(refused.reports.map((r) => [r.type, r.at])).toEqual([
      ['accepted', 0],
      ['rejected', 0],
    ]);
    expect(refused.reports[1]).toMatchObject({ code: 'PAPER_SLIPPAGE_EXCEEDED' });
    expect(refused.ex.inFlight()).toBe(0);

    // 5 % dearer at the decision (passes: 5 % and the fees are within 800 bps), 5 % more by the landing:
    // on chain the least output is the quote's less 800 bps, so it lands, though 10 % from the reference
    const lands = setup(model({ latencyMs: [9_999], landing }));
    await lands.start();
    lands.tick(0);
    await lands.ex.submit(withRef('b'));
    lands.tick(0, 31_500_000_000n);
    lands.clock.advance(300);
    lands.tick(300, 33_075_000_000n);
    lands.clock.advance(501);
    expect(lands.reports.at(-1)).toMatchObject({ type: 'filled', at: 800 });
    // and one that moved beyond 800 bps from its quote fails on chain at landing, paying the fee
    await lands.ex.submit(withRef('c'));
    lands.tick(801, 31_500_000_000n);
    lands.clock.advance(1);
    lands.tick(900, 36_000_000_000n);
    lands.clock.advance(1_000);
    expect(lands.reports.at(-1)).toMatchObject({ type: 'failed', intentId: 'c', code: 'PAPER_SLIPPAGE_EXCEEDED', feeLamports: 110_000n, at: 1_601 });

    // a refusal at simulation (the calibrated rate) is reported at the decision too
    const sim = setup(model({ simulationFailureRate: 1, landing }));
    await sim.start();
    sim.tick(0);
    await sim.ex.submit(buy('d'));
    sim.clock.advance(1);
    expect(sim.reports.at(-1)).toMatchObject({ type: 'rejected', code: 'LIVE_INSPECTION_SIMULATION', at: 0 });
  });

  it("prices a token still on its bonding curve against the curve's virtual reserves at the observed price (the launch's product), not the liquidity depth", async () => {
    const view = createMarketView();
    // launched with 30 SOL against 1.073e15 raw virtual; now at 0.00000003318521239381175 SOL a token, with 2.68 SOL of real liquidity
    view.observe({
      type: 'launch',
      room: 'latest',
      receivedAt: 0 as UnixMs,
      origin: 'live',
      mint: MINT,
      symbol: '',
      name: '',
      decimals: 6,
      market: 'venue_a',
      poolId: 'P',
      riskScore: undefined,
      curveSolLamports: 30_000_000_000n,
      curveTokenRaw: 1_073_000_000_000_000n,
    });
    const price = '0.00000003318521239381175';
    const tick = (at: number): void =>
      view.observe({
        type: 'price',
        room: `price:token:${MINT}`,
        receivedAt: at as UnixMs,
        origin: 'live',
        mint: MINT,
        price,
        priceUsd: 0.00000003318521239381175 * 150,
        aggregated: false,
        pool: 'P',
        market: 'venue_a',
        liquidityUsd: 805,
        solReserveLamports: undefined,
        tokenReserveRaw: undefined,
        poolFeeBps: undefined,
        at: at as UnixMs,
      });
    tick(0);
    const obs = view.get(MINT)!;
    const options = { ...DEFAULT_FILL_MODEL, extraSlippageBps: 0, curveReserves: true };
    const r = reservesFor(obs, 6, options)!;
    // sol = √(k × price in lamports per raw) and token = sol ÷ that price: 32.69 SOL of virtual depth, not 2.68
    const k = 30_000_000_000n * 1_073_000_000_000_000n;
    expect(r.sol * r.sol <= (k * 3_318_521_239_381_175n * 1_000_000_000n) / 10n ** 29n).toBe(true);
    expect((r.sol + 1n) * (r.sol + 1n) > (k * 3_318_521_239_381_175n * 1_000_000_000n) / 10n ** 29n).toBe(true);
    expect(r.sol / 1_000_000_000n).toBe(32n);
    expect(reservesFor(obs, 6, { ...options, curveReserves: false })!.sol / 100_000_000n).toBe(26n); // liquidity / 2 at 150 USD a SOL
    // a 0.05 SOL buy: 1 % fee and 0.15 % of impact on the curve, where the liquidity depth gave 1.8 %
    const a = modelFill(orderIntent({ ...buy('a', 50_000_000n), decimals: 6 }), obs, options);
    expect(a.ok && a.tokenAmount).toBe((r.token * 49_500_000n) / (r.sol + 49_500_000n));
    // once graduated, the pool's own reserves: the liquidity depth again
    view.observe({
      type: 'graduated',
      room: 'graduated',
      receivedAt: 1 as UnixMs,
      origin: 'live',
      mint: MINT,
      market: 'venue_b',
      poolId: 'Q',
      graduationTx: undefined,
      graduationTime: undefined,
    });
    tick(2);
    expect(reservesFor(view.get(MINT)!, 6, options)!.sol / 100_000_000n).toBe(26n);
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
