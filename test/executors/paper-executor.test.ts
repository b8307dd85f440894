import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bps, Decimal, decimal, lamports, manualClock, type UnixMs } from '../../src/core/index.js';
import { exactString } from '../../src/engine/events/price-tick.js';
import type { ExecutionReport, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { createMarketView } from '../../src/engine/market/market-view.js';
import { orderIntent, type IntentDraft } from '../helpers/intents.js';
import { DEFAULT_FILL_MODEL, modelFill } from '../../src/executors/paper/fill-model.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';

const intent = (o: Partial<IntentDraft> = {}): OrderIntent =>
  orderIntent({
    id: 'int_1',
    strategyId: 's',
    side: 'buy',
    mint: 'M',
    decimals: 6,
    spendLamports: 1_000_000_000n,
    slippageBps: bps(500),
    priorityFeeLamports: lamports(20_000n),
    referencePrice: '0.00003',
    createdAt: 0 as UnixMs,
    reason: 'test',
    ...o,
  });

function observed(price: number, reserves?: { sol: bigint; token: bigint }, at = 0, poolFeeBps = 100) {
  const view = createMarketView();
  view.observe({
    type: 'price',
    room: 'price:token:M',
    receivedAt: at as UnixMs,
    origin: 'live',
    mint: 'M',
    price: String(price),
    priceUsd: undefined,
    aggregated: false,
    pool: 'P',
    market: 'venue_a',
    liquidityUsd: undefined,
    solReserveLamports: reserves?.sol,
    tokenReserveRaw: reserves?.token,
    poolFeeBps: reserves ? poolFeeBps : undefined,
    at: at as UnixMs,
  });
  return view;
}

/** The fill model as it was written in bignumber.js: virtual reserves at the price, and the slippage check. */
function reference(i: OrderIntent, price: string): { token: bigint; worse: boolean } | undefined {
  const sol = DEFAULT_FILL_MODEL.assumedDepthLamports;
  const token = BigInt(
    new Decimal(sol.toString())
      .div(decimal(price))
      .shiftedBy(i.decimals - 9)
      .integerValue(Decimal.ROUND_DOWN)
      .toFixed(0),
  );
  const r = modelFill(i, observedText(price).get('M'));
  if (!r.ok && r.code !== 'PAPER_SLIPPAGE_EXCEEDED') return undefined;
  if (!r.ok || i.referencePrice === undefined) return { token, worse: !r.ok };
  const ref = decimal(i.referencePrice);
  const tol = new Decimal(i.slippageBps).div(10_000);
  const fill = decimal(r.price);
  return { token, worse: i.side === 'buy' ? fill.gt(ref.times(tol.plus(1))) : fill.lt(ref.times(new Decimal(1).minus(tol))) };
}

/** A market view whose last tick of M has exactly this price string (no reserves, no liquidity). */
function observedText(price: string) {
  const view = createMarketView();
  view.observe({
    type: 'price',
    room: 'price:token:M',
    receivedAt: 0 as UnixMs,
    origin: 'live',
    mint: 'M',
    price,
    priceUsd: undefined,
    aggregated: false,
    pool: 'P',
    market: 'venue_a',
    liquidityUsd: undefined,
    solReserveLamports: undefined,
    tokenReserveRaw: undefined,
    poolFeeBps: undefined,
    at: 0 as UnixMs,
  });
  return view;
}

describe('paper fill model', () => {
  it('trades against virtual reserves and checks slippage exactly as bignumber.js would (random prices, sizes, references)', () => {
    const price = fc.double({ min: 1e-12, max: 10, noNaN: true, noDefaultInfinity: true }).map((n) => exactString(n));
    fc.assert(
      fc.property(
        price,
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.integer({ min: 0, max: 3_000 }),
        fc.constantFrom(0, 6, 9),
        fc.boolean(),
        (p, spend, slip, decimals, hasRef) => {
          const i = intent({ spendLamports: spend, slippageBps: bps(slip), decimals, referencePrice: hasRef ? p : undefined });
          const r = modelFill(i, observedText(p).get('M'));
          const want = reference(i, p);
          if (want === undefined) return;
          if (r.ok) {
            // the fill's tokens follow from the virtual reserves the reference computes
            const inAfterFee = (spend * (10_000n - 100n)) / 10_000n;
            const out = (want.token * inAfterFee) / (DEFAULT_FILL_MODEL.assumedDepthLamports + inAfterFee);
            expect(r.tokenAmount).toBe((out * (10_000n - 50n)) / 10_000n);
            expect(r.price).toBe(
              new Decimal(r.solAmount.toString())
                .div(r.tokenAmount.toString())
                .shiftedBy(decimals - 9)
                .toFixed(),
            );
          }
          expect(!r.ok).toBe(want.worse);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('fills a buy by constant-product math on observed reserves, minus pool fee and extra slippage, exactly', () => {
    const sol = 30_000_000_000n;
    const token = 1_000_000_000_000n; // 1e6 tokens for 30 SOL: 0.00003 SOL per token
    const r = modelFill(intent(), observed(0.00003, { sol, token }).get('M'), { ...DEFAULT_FILL_MODEL, extraSlippageBps: 50 });
    const inAfterFee = (1_000_000_000n * 9_900n) / 10_000n;
    const out = (token * inAfterFee) / (sol + inAfterFee);
    expect(r).toMatchObject({ ok: true, solAmount: 1_000_000_000n, tokenAmount: (out * 9_950n) / 10_000n, feeLamports: 25_000n, pool: 'P' });
  });

  it('refuses on slippage when the pool moved beyond it from the reference, not when fee and impact on a smaller move take the fill past it', () => {
    const sol = 30_000_000_000n;
    const token = 1_000_000_000_000n; // pool price 0.00003 SOL per token
    const obs = observed(0.00003, { sol, token }).get('M');
    // The price rose 2 % since the decision; fee 100 bps, extra 50 bps and impact (0.1 SOL in 30) put the fill about 3.9 % above the reference.
    const moved2 = modelFill(intent({ spendLamports: 100_000_000n, slippageBps: bps(300), referencePrice: '0.0000294117647' }), obs);
    expect(moved2.ok).toBe(true);
    // The price rose 4 %: beyond 300 bps, as the swap's least output (the quote less 3 %) would fail on chain.
    const moved4 = modelFill(intent({ spendLamports: 100_000_000n, slippageBps: bps(300), referencePrice: '0.0000288461538' }), obs);
    expect(moved4).toMatchObject({ ok: false, code: 'PAPER_SLIPPAGE_EXCEEDED' });
    expect(!moved4.ok && moved4.reason).toContain('pool price 0.000030000000 at the fill is beyond 300 bps of reference');
    // No move, but fee and impact alone beyond the slippage: refused, as live refuses such a quote before signing.
    const costly = modelFill(intent({ spendLamports: 100_000_000n, slippageBps: bps(100), referencePrice: '0.00003' }), obs);
    expect(!costly.ok && costly.reason).toContain('(fee and impact) is beyond 100 bps of the pool price');
    // A sell in a fall: 2 % below the reference fills, 4 % below fails.
    const sell = (ref: string) => modelFill(intent({ side: 'sell', sellRaw: 10_000_000_000n, slippageBps: bps(300), referencePrice: ref }), obs);
    expect(sell('0.0000306122449').ok).toBe(true);
    expect(sell('0.0000312500000')).toMatchObject({ ok: false, code: 'PAPER_SLIPPAGE_EXCEEDED' });
  });

  it('gives back a negative extraSlippageBps (a calibrated correction) on both sides, exactly', () => {
    const sol = 30_000_000_000n;
    const token = 1_000_000_000_000n;
    const buy = modelFill(intent(), observed(0.00003, { sol, token }).get('M'), { ...DEFAULT_FILL_MODEL, extraSlippageBps: -100 });
    const inAfterFee = (1_000_000_000n * 9_900n) / 10_000n;
    expect(buy).toMatchObject({ ok: true, tokenAmount: (((token * inAfterFee) / (sol + inAfterFee)) * 10_100n) / 10_000n });
    const sell = modelFill(intent({ side: 'sell', sellRaw: 10_000_000_000n }), observed(0.00003, { sol, token }).get('M'), {
      ...DEFAULT_FILL_MODEL,
      extraSlippageBps: -100,
    });
    const sellAfterFee = (10_000_000_000n * 9_900n) / 10_000n;
    expect(sell).toMatchObject({ ok: true, solAmount: (((sol * sellAfterFee) / (token + sellAfterFee)) * 10_100n) / 10_000n });
  });

  it('never fills better than the pool price before fee and impact, whatever negative extraSlippageBps and pool fee', () => {
    // A pool reporting a 25 bps fee and a correction of −500 bps: at most the 25 bps come back.
    const sol = 30_000_000_000n;
    const token = 1_000_000_000_000n;
    const low = observed(0.00003, { sol, token }, 0, 25).get('M');
    const buy = modelFill(intent({ spendLamports: 1_000_000n }), low, { ...DEFAULT_FILL_MODEL, extraSlippageBps: -500 });
    const inAfterFee = (1_000_000n * 9_975n) / 10_000n;
    expect(buy).toMatchObject({ ok: true, tokenAmount: (((token * inAfterFee) / (sol + inAfterFee)) * 10_025n) / 10_000n });
    fc.assert(
      fc.property(
        fc.integer({ min: -5_000, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.bigInt({ min: 1_000n, max: 50_000_000_000n }),
        fc.boolean(),
        (extra, fee, amount, isBuy) => {
          const obs = observed(0.00003, { sol, token }, 0, fee).get('M');
          const i = isBuy ? intent({ spendLamports: amount, referencePrice: undefined }) : intent({ side: 'sell', sellRaw: amount, referencePrice: undefined });
          const r = modelFill(i, obs, { ...DEFAULT_FILL_MODEL, extraSlippageBps: extra });
          if (!r.ok) return;
          // Out / in at most the pool's spot rate: token / sol for a buy, sol / token for a sell.
          if (isBuy) expect(r.tokenAmount * sol).toBeLessThanOrEqual(amount * token);
          else expect(r.solAmount * token).toBeLessThanOrEqual(amount * sol);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives a sell the symmetric output in lamports', () => {
    const sol = 30_000_000_000n;
    const token = 1_000_000_000_000n;
    const r = modelFill(intent({ side: 'sell', sellRaw: 10_000_000_000n }), observed(0.00003, { sol, token }).get('M'));
    const inAfterFee = (10_000_000_000n * 9_900n) / 10_000n;
    expect(r).toMatchObject({ ok: true, tokenAmount: 10_000_000_000n, solAmount: (((sol * inAfterFee) / (token + inAfterFee)) * 9_950n) / 10_000n });
  });

  it('has more price impact for a bigger order', () => {
    const view = observed(0.00003);
    const small = modelFill(intent({ spendLamports: 100_000_000n }), view.get('M'));
    const big = modelFill(intent({ spendLamports: 10_000_000_000n, slippageBps: bps(10_000) }), view.get('M'));
    if (!small.ok || !big.ok) throw new Error('expected fills');
    expect(Number(big.price)).toBeGreaterThan(Number(small.price));
  });

  it('fails like an on-chain swap, fee paid, when the fill is beyond the intent slippage', () => {
    const r = modelFill(intent({ slippageBps: bps(10), referencePrice: '0.00003' }), observed(0.00003).get('M'));
    expect(r).toMatchObject({ ok: false, code: 'PAPER_SLIPPAGE_EXCEEDED', feeLamports: 25_000n });
  });

  it('caps the priority fee at the configured maximum', () => {
    const r = modelFill(intent({ priorityFeeLamports: lamports(9_000_000n), slippageBps: bps(10_000) }), observed(0.00003).get('M'));
    expect(r).toMatchObject({ ok: true, feeLamports: 5_000n + DEFAULT_FILL_MODEL.priorityFeeCapLamports });
  });
});

describe('paper executor', () => {
  it('fills at the price observed after its latency, on the injected clock', async () => {
    const clock = manualClock(0);
    const view = observed(0.00003);
    const reports: ExecutionReport[] = [];
    const ex = createPaperExecutor({ clock, market: view, latencyMs: 300 });
    await ex.start((r) => reports.push(r));
    await ex.submit(intent({ referencePrice: undefined }));
    expect(reports.map((r) => r.type)).toEqual(['accepted']);
    clock.advance(100);
    view.observe({
      type: 'price',
      room: 'price:token:M',
      receivedAt: 100 as UnixMs,
      origin: 'live',
      mint: 'M',
      price: '0.00006',
      priceUsd: undefined,
      aggregated: false,
      pool: 'P',
      market: undefined,
      liquidityUsd: undefined,
      solReserveLamports: undefined,
      tokenReserveRaw: undefined,
      poolFeeBps: undefined,
      at: 100 as UnixMs,
    });
    clock.advance(200);
    const filled = reports[1];
    expect(filled?.type).toBe('filled');
    if (filled?.type !== 'filled') return;
    expect(filled.at).toBe(300);
    expect(Number(filled.fill.price)).toBeGreaterThan(0.00006);
    expect(Number(filled.fill.price)).toBeLessThan(0.000064);
  });

  it('rejects without a price and refuses intents before start and after stop', async () => {
    const clock = manualClock(0);
    const reports: ExecutionReport[] = [];
    const ex = createPaperExecutor({ clock, market: createMarketView(), latencyMs: 0 });
    await expect(ex.submit(intent())).rejects.toMatchObject({ code: 'PAPER_NOT_STARTED' });
    await ex.start((r) => reports.push(r));
    await ex.submit(intent());
    clock.advance(0);
    // no price yet: the fill waits (priceWaitMs, default 10 s) for a first tick, then gives up
    expect(reports).toHaveLength(1);
    clock.advance(10_000);
    expect(reports[1]).toMatchObject({ type: 'rejected', code: 'PAPER_NO_PRICE', reason: expect.stringContaining('waited 10000 ms') });
    await ex.submit(intent({ id: 'int_2' }));
    await ex.stop();
    expect(reports.at(-1)).toMatchObject({ type: 'expired', intentId: 'int_2' });
    await expect(ex.submit(intent({ id: 'int_3' }))).rejects.toMatchObject({ code: 'PAPER_STOPPED' });
  });
});

describe('paper executor: the manual hold (paper.manualHold)', () => {
  it("holds an operator's intent for the hold before its latency, so that a cancel catches it; strategies' intents are not held", async () => {
    const clock = manualClock(0);
    const reports: ExecutionReport[] = [];
    const ex = createPaperExecutor({ clock, market: observed(0.00003), latencyMs: 250, manualHoldMs: 30_000 });
    await ex.start((r) => reports.push(r));
    const kinds = (id: string) => reports.filter((r) => r.intentId === id).map((r) => r.type);
    await ex.submit(intent({ id: 'int_strategy' }));
    await ex.submit(intent({ id: 'int_manual' }));
    ex.holdManual?.('int_manual');
    await ex.submit(intent({ id: 'int_cancelled' }));
    ex.holdManual?.('int_cancelled');
    clock.advance(250);
    expect(kinds('int_strategy')).toEqual(['accepted', 'filled']);
    expect(kinds('int_manual')).toEqual(['accepted']);
    clock.advance(20_000);
    expect(ex.cancel?.('int_cancelled', 'operator')).toBe(true);
    expect(reports.find((r) => r.intentId === 'int_cancelled' && r.type === 'rejected')).toMatchObject({ code: 'ENGINE_INTENT_CANCELLED' });
    clock.advance(9_999);
    expect(kinds('int_manual')).toEqual(['accepted']);
    clock.advance(1);
    expect(kinds('int_manual')).toEqual(['accepted', 'filled']);
    expect(ex.inFlight()).toBe(0);
  });

  it('holds nothing by default', async () => {
    const clock = manualClock(0);
    const reports: ExecutionReport[] = [];
    const ex = createPaperExecutor({ clock, market: observed(0.00003), latencyMs: 250 });
    await ex.start((r) => reports.push(r));
    await ex.submit(intent({ id: 'int_manual' }));
    ex.holdManual?.('int_manual');
    clock.advance(250);
    expect(reports.map((r) => r.type)).toEqual(['accepted', 'filled']);
  });
});
