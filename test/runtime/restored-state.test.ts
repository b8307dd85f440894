/**
 * A restart leaves nothing stuck: restored positions are priced from the simulator's REST before
 * any event and their exits fire; realised PnL rebuilt from the journal includes the fees of
 * failed transactions (equity = start + realised + unrealised holds across the restart); and an
 * intent id the journal already holds is reported with a coded error, never left pending.
 */
import { priceFrame as priceData, wire } from '../engine/wire.js';
import type { StreamMessage } from '../../src/engine/events/feed-port.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bps, createRedactor, lamports, manualClock, newId, rawAmount, seededRandom, type UnixMs } from '../../src/core/index.js';
import type { DecisionEntry } from '../../src/engine/logs/decision-log.js';
import { createEngine } from '../../src/engine/engine.js';
import { amountInOf, type Fill, type OrderIntent } from '../../src/engine/orders/execution-port.js';
import type { MarketView } from '../../src/engine/market/market-view.js';
import { priceOf } from '../../src/engine/market/portfolio.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import type { LiveRpcPort, SwapBuilderPort } from '../../src/executors/live/ports.js';
import { createLiveExecutor } from '../../src/executors/live/live-executor.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { keypairSigner } from '../../src/executors/signer/signer.js';
import { openDeploymentStore, type DeploymentStore } from '../../src/runtime/store/deployment-store.js';
import { createRestPorts, type RestPorts } from '../../src/runtime/compose/rest-ports.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { fakeFeed } from '../engine/fake-feed.js';

const SOL = 1_000_000_000n;
const T0 = 1_700_000_000_000;
const MINT = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';

const idle = defineStrategy({ id: 'idle', params: z.strictObject({}), rooms: () => [] });
const buyer = defineStrategy({
  id: 'buyer',
  params: z.strictObject({}),
  rooms: () => ['latest'],
  onLaunch(e, ctx) {
    ctx.buy({ mint: e.mint, lamports: SOL, reason: 'launch' });
  },
});

/** A port the test must never reach: any call throws. */
function unreachable<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get: (_t, k) => () => {
      throw new Error(`${name}.${String(k)} must not be called`);
    },
  });
}

let dir = '';
let sim: RunningSimulator | undefined;
let rest: RestPorts | undefined;
const stores: DeploymentStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await rest?.close();
  await sim?.stop();
  rest = undefined;
  sim = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function fillOf(intentId: string, side: 'buy' | 'sell', mint: string, sol: bigint, tokens: bigint, fee: bigint, at: number): Fill {
  return {
    intentId,
    side,
    mint,
    decimals: 6,
    solAmount: lamports(sol),
    tokenAmount: rawAmount(tokens),
    feeLamports: lamports(fee),
    price: priceOf(sol, tokens, 6),
    filledAt: at as UnixMs,
  };
}

function intentOf(id: string, side: 'buy' | 'sell', amount: bigint, at: number): OrderIntent {
  const common = {
    id,
    strategyId: 'buyer',
    mint: MINT,
    decimals: 6,
    slippageBps: bps(300),
    priorityFeeLamports: lamports(10_000n),
    referencePrice: undefined,
    createdAt: at as UnixMs,
    reason: 'test',
  };
  return side === 'buy' ? { ...common, side, spendLamports: lamports(amount) } : { ...common, side, sellRaw: rawAmount(amount) };
}

/** Journals an intent through to LANDED (with `fill`) or FAILED_ON_CHAIN (with `feeLamports`). */
async function journalOutcome(store: DeploymentStore, intent: OrderIntent, outcome: { fill: Fill } | { feeLamports: bigint }, n: number): Promise<void> {
  const j = store.journal;
  const at = T0 + n;
  await j.create(intent, { spendLamports: amountInOf(intent), day: '2023-11-14' }, at);
  await j.markBuilt(intent.id, at);
  const signature = `sig${n}x`.padEnd(88, '1');
  await j.recordSigned(intent.id, { signature, txBase64: 'AA==', blockhash: 'bh', expiryBlockHeight: 100, slippageBps: 300 }, at);
  await j.markSent(intent.id, signature, at);
  await j.resolve(
    intent.id,
    'fill' in outcome
      ? { state: 'LANDED', signature, fill: outcome.fill }
      : { state: 'FAILED_ON_CHAIN', signature, code: 'LIVE_FAILED_ON_CHAIN', reason: 'slippage', feeLamports: lamports(outcome.feeLamports) },
    at,
  );
  await j.markReported(intent.id, at);
}

/** A price frame as the client parses it: `price_quote` is SOL per token. */
function priceFrame(mint: string, at: UnixMs): StreamMessage {
  return wire(`price:token:${mint}`, priceData(0.0001, { time: at }), at);
}

describe('restored state', () => {
  it('prices restored positions from REST before any event, joins their price and safety rooms, and fires their exits', async () => {
    const clock = manualClock(T0);
    sim = await startSimulator({ seed: 5, clock, apiKey: 'restore-key' });
    clock.advance(120_000);
    const token = [...sim.model.state.tokens.values()].find((t) => t.alive && t.status === 'curve');
    expect(token).toBeDefined();
    const mint = token!.mint;
    rest = createRestPorts({ baseUrl: sim.urls.base, apiKey: sim.apiKey, redactor: createRedactor() });
    const now = (await rest.data.get('/price', { token: mint })) as { priceQuote: number };
    // Bought at 10x today's price: a 50% stop loss must fire as soon as the price is known.
    const tokens = 1_000_000_000n;
    const boughtAt = BigInt(Math.ceil(now.priceQuote * 1_000 * 10 * 1e9)); // 1 000 whole tokens at 10x the price
    const restoredFills = [{ strategyId: 'idle', fill: fillOf('old1', 'buy', mint, boughtAt, tokens, 5_000n, T0 - 60_000) }];
    const feed = fakeFeed(clock);
    const entries: DecisionEntry[] = [];
    const ref: { market?: MarketView } = {};
    const engine = createEngine({
      feed,
      clock,
      random: seededRandom(1),
      data: rest.data,
      restoredFills,
      decisions: (e) => void entries.push(e),
      executor: createPaperExecutor({ clock, market: { get: (m) => ref.market?.get(m) }, latencyMs: 0 }),
      strategies: [instantiateStrategy(idle, {}, { id: 'idle', exits: { stopLossBps: 5_000, exitOnSafety: { maxBundlerPct: 60, maxTop10Pct: 90 } } })],
      risk: {},
      startingCashLamports: 10n * SOL,
      execution: { slippageBps: 300, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    });
    ref.market = engine.market;
    const before = engine.portfolio.position('idle', mint)!;
    expect(engine.portfolio.valueOf(before)).toBeUndefined();
    await engine.start();
    const p = engine.portfolio.position('idle', mint)!;
    expect(engine.portfolio.valueOf(p)).toBeGreaterThan(0n);
    expect(engine.portfolio.valueOf(p)! * 5n).toBeLessThan(boughtAt);
    expect(feed.joined()).toEqual(expect.arrayContaining([`price:token:${mint}`, `bundlers:${mint}`, `top10:${mint}`]));
    expect(entries).toContainEqual(expect.objectContaining({ kind: 'intent', side: 'sell', mint, reason: expect.stringContaining('stop') }));
    await engine.stop();
  });

  it('rebuilds realised PnL with every fee paid, failed transactions too, so equity = start + realised + unrealised across a restart', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-restore-'));
    const store = openDeploymentStore({ path: join(dir, 'store.db'), deployment: 'restore', wallet: 'W' });
    stores.push(store);
    const start = 20n * SOL;
    const buyFee = 15_000n;
    const failedFees = [5_000n, 105_000n, 2_310_000n];
    await journalOutcome(store, intentOf('b1', 'buy', 2n * SOL, T0), { fill: fillOf('b1', 'buy', MINT, 2n * SOL, 4_000_000_000n, buyFee, T0) }, 1);
    for (const [i, fee] of failedFees.entries()) await journalOutcome(store, intentOf(`f${i}`, 'buy', SOL, T0), { feeLamports: fee }, 10 + i);
    await journalOutcome(store, intentOf('s1', 'sell', 1_000_000_000n, T0), { fill: fillOf('s1', 'sell', MINT, SOL, 1_000_000_000n, 5_000n, T0) }, 20);
    const failedTotal = failedFees.reduce((a, b) => a + b, 0n);
    // What the wallet holds after those transactions: every fee left it.
    const wallet = start - 2n * SOL - buyFee - failedTotal + SOL - 5_000n;

    const restored = await store.restored();
    expect(restored.fills).toHaveLength(2);
    expect(restored.failedFees.map((f) => f.feeLamports)).toEqual(failedFees);
    const clock = manualClock(T0 + 60_000);
    const engine = createEngine({
      feed: fakeFeed(clock),
      clock,
      random: seededRandom(1),
      restoredFills: restored.fills,
      restoredFailedFees: restored.failedFees,
      executor: createPaperExecutor({ clock, market: { get: () => undefined }, latencyMs: 0 }),
      strategies: [instantiateStrategy(buyer, {}, { id: 'buyer' })],
      risk: {},
      startingCashLamports: wallet,
      execution: { slippageBps: 300, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    });
    engine.portfolio.mark(MINT, '0.0004');
    const t = engine.portfolio.totals();
    expect(t.cashLamports).toBe(wallet);
    expect(t.startingCashLamports).toBe(start);
    expect(t.equityLamports).toBe(t.startingCashLamports + t.realisedLamports + t.unrealisedLamports);
    expect(t.feesLamports).toBe(buyFee + 5_000n + failedTotal);
  });

  it('reports an intent id the journal already holds with LIVE_INTENT_ID_REPEATED instead of leaving it pending', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-repeat-'));
    const store = openDeploymentStore({ path: join(dir, 'store.db'), deployment: 'repeat', wallet: 'W' });
    stores.push(store);
    const clock = manualClock(T0);
    // An earlier run on the same seed and clock journaled the id this run's engine will produce.
    const repeated = newId(clock.now(), seededRandom(9), 'int_');
    await store.journal.create(intentOf(repeated, 'buy', SOL, T0), { spendLamports: SOL, day: '2023-11-14' }, T0);
    await store.journal.deny(repeated, 'LIVE_INSPECTION_OUTFLOW', 'earlier run', T0);
    await store.journal.markReported(repeated, T0);

    const feed = fakeFeed(clock);
    const entries: DecisionEntry[] = [];
    const executor = createLiveExecutor({
      rpc: unreachable<LiveRpcPort>('rpc'),
      swap: unreachable<SwapBuilderPort>('swap'),
      signer: keypairSigner(Keypair.generate()),
      journal: store.journal,
      clock,
      settings: { maxTradeLamports: 5n * SOL, maxDayLamports: 50n * SOL },
    });
    const engine = createEngine({
      feed,
      clock,
      random: seededRandom(9),
      executor,
      decisions: (e) => void entries.push(e),
      strategies: [instantiateStrategy(buyer, {}, { id: 'buyer' })],
      risk: { maxOpenPositions: 1 },
      startingCashLamports: 10n * SOL,
      execution: { slippageBps: 300, priorityFeeLamports: lamports(10_000n), defaultDecimals: 6 },
    });
    await engine.start();
    engine.ingest(priceFrame(MINT, clock.now()));
    feed.push('latest', { token: { mint: MINT, symbol: 'R', name: 'R', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'pool' }] });
    await expect
      .poll(() => entries.find((e) => e.kind === 'unfilled'))
      .toMatchObject({ intentId: repeated, outcome: 'rejected', code: 'LIVE_INTENT_ID_REPEATED' });
    expect(entries.find((e) => e.kind === 'intent')).toMatchObject({ intentId: repeated });
    // Not left pending: the only position slot is free again, so the next launch gets its intent.
    const other = 'So11111111111111111111111111111111111111112';
    engine.ingest(priceFrame(other, clock.now()));
    feed.push('latest', { token: { mint: other, symbol: 'S', name: 'S', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'pool2' }] });
    expect(entries.at(-1)).toMatchObject({ kind: 'intent', mint: other });
    await engine.stop(AbortSignal.timeout(1_000));
  });
});
