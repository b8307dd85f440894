/**
 * Frames of every room family, in the shapes the service documents and sends, go through a real
 * socket into the Datastream client and the engine; the strategy's domain events carry the right
 * values (mint, side, percentages, prices).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDatastreamClient, ROOM_FAMILIES, type DatastreamClient } from '../../src/client/datastream/index.js';
import { manualClock, seededRandom, lamports } from '../../src/core/index.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { DomainEvent } from '../../src/engine/events/events.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { formatRejects } from '../../src/runtime/shell/status-panel.js';
import { startStreamServer, waitFor, type StreamServer } from './helpers/stream-server.js';

const KEY = 'family-key-7d1e';
const SOL = 'So11111111111111111111111111111111111111112';
const M = 'MintA';

/** One frame per room family, as the service sends it, and what the engine must make of it. */
const FRAMES: { room: string; data: unknown; expect: Record<string, unknown>[] }[] = [
  {
    room: 'latest',
    data: { token: { mint: M, name: 'Cat', symbol: 'CAT', decimals: 6, uri: 'x' }, pools: [{ market: 'venue_a', poolId: 'P1', liquidity: { usd: 9 } }] },
    expect: [{ type: 'launch', mint: M, symbol: 'CAT', market: 'venue_a', poolId: 'P1' }],
  },
  { room: 'graduating', data: { token: { mint: M }, pools: [], curvePercentage: 81.5 }, expect: [{ type: 'graduating', mint: M, curvePercent: 81.5 }] },
  // the service's documented example has no graduationTx
  {
    room: 'graduated',
    data: { token: { mint: M, name: 'Cat' }, pools: [{ market: 'venue_a-amm', poolId: 'AMM1' }] },
    expect: [{ type: 'graduated', mint: M, market: 'venue_a-amm', poolId: 'AMM1', graduationTx: undefined }],
  },
  {
    room: 'venue_a:curve:50',
    data: { token: { mint: M }, pools: [], curvePercentage: 50.2 },
    expect: [{ type: 'curve', mint: M, market: 'venue_a', percent: 50 }],
  },
  {
    room: `liquidity:${M}`,
    data: [
      {
        tx: 'L1',
        type: 'remove_liquidity',
        program: 'venue_a-amm',
        programId: 'Prog',
        instruction: 'withdraw',
        pool: 'AMM1',
        wallet: 'W1',
        time: 5,
        slot: 9,
        amountBasis: 'transfer',
        tokens: [{ address: M, amount: '2', amountRaw: '2000000', decimals: 6 }],
      },
    ],
    expect: [{ type: 'liquidity', mint: M, kind: 'remove', pool: 'AMM1', provisional: true }],
  },
  // an array of swaps with the {from, to} pair, then a single swap object
  {
    room: `transaction:${M}`,
    data: [
      {
        tx: 'S1',
        type: 'buy',
        wallet: 'W2',
        amount: 1500,
        priceUsd: 0.02,
        volume: 30,
        time: 11,
        token: { from: { address: SOL, amount: 0.2, decimals: 9, price: { usd: 150 } }, to: { address: M, amount: 1500, decimals: 6, price: { usd: 0.02 } } },
      },
      { tx: 'S2', wallet: 'W3', time: 12, token: { from: { address: M, amount: 40, decimals: 6 }, to: { address: SOL, amount: 0.005, decimals: 9 } } },
    ],
    expect: [
      { type: 'trade', mint: M, side: 'buy', wallet: 'W2', amount: '1500', priceUsd: 0.02, volumeUsd: 30 },
      { type: 'trade', mint: M, side: 'sell', amount: '40' },
    ],
  },
  {
    room: `transaction:${M}:AMM1`,
    data: { tx: 'S3', type: 'sell', wallet: 'W4', amount: '7.5', time: 13, token: { from: { address: M, amount: 7.5 }, to: { address: SOL, amount: 0.001 } } },
    expect: [{ type: 'trade', mint: M, side: 'sell', amount: '7.5' }],
  },
  // sniper and insider messages carry both totals: each room reports its own
  {
    room: `insider:${M}`,
    data: { wallet: 'W5', amount: '10', percentage: 1, previousPercentage: 0.5, totalSniperPercentage: 12, totalInsiderPercentage: 31 },
    expect: [{ type: 'safety', mint: M, signal: 'insider', current: 31 }],
  },
  {
    room: `sniper:${M}`,
    data: { wallet: 'W5', totalSniperPercentage: 12, totalInsiderPercentage: 31 },
    expect: [{ type: 'safety', signal: 'sniper', current: 12 }],
  },
  { room: `bundlers:${M}`, data: { wallet: 'W6', totalBundlerPercentage: 22.5 }, expect: [{ type: 'safety', signal: 'bundlers', current: 22.5 }] },
  {
    room: `dev_holding:${M}`,
    data: { token: M, creator: 'D', amount: '5', percentage: 4.5, previousPercentage: 5, timestamp: 14 },
    expect: [{ type: 'safety', signal: 'dev_holding', current: 4.5, previous: 5 }],
  },
  { room: `holders:${M}`, data: { total: 321 }, expect: [{ type: 'safety', signal: 'holders', current: 321 }] },
  {
    room: `top10:${M}`,
    data: { token: M, holders: [], totalPercentage: 44.4, previousPercentage: null, timestamp: 15 },
    expect: [{ type: 'safety', signal: 'top10', current: 44.4, previous: undefined }],
  },
  {
    room: `price:token:${M}`,
    data: { price: 0.03, price_quote: 0.0002, pool: 'AMM1', token: M, time: 16 },
    expect: [{ type: 'price', mint: M, price: '0.0002', priceUsd: 0.03, at: 16 }],
  },
  {
    room: `price:aggregated:${M}`,
    data: {
      token: M,
      timestamp: 17,
      price: 0.03,
      pool: 'AMM1',
      aggregated: { median: 0.03, average: 0.03, min: 0.029, max: 0.031, poolCount: 2 },
      topPools: [],
    },
    expect: [{ type: 'price', mint: M, aggregated: true, price: '0.0002', priceUsd: 0.03, at: 17 }],
  },
  {
    room: `stats:token:${M}:total`,
    data: { volume: 1000, buys: 3, label: 'x' },
    expect: [{ type: 'stats', scope: 'token', id: M, values: { volume: 1000, buys: 3 } }],
  },
  { room: 'pnl:W7:summary', data: { type: 'summary', totalPnl: 5 }, expect: [{ type: 'walletPnl', wallet: 'W7', kind: 'summary' }] },
  {
    room: `pnl:W7:${M}`,
    data: { type: 'tradeUpdate', tx: 'S9', token: M, timestamp: 18 },
    expect: [{ type: 'walletPnl', wallet: 'W7', mint: M, kind: 'tradeUpdate' }],
  },
  {
    room: `dca:dca_program_a:${M}:buyers`,
    data: { eventName: 'opened', signature: 'D1', order: { address: 'O1', inputMint: SOL, outputMint: M } },
    expect: [{ type: 'dca', mint: M, flow: 'buyers', eventName: 'opened', outputMint: M }],
  },
  {
    room: 'pm:market:exchange_b:T1:prices',
    data: { price: 0.62, timestamp: 19 },
    expect: [{ type: 'prediction', exchange: 'exchange_b', tokenId: 'T1', price: 0.62 }],
  },
  { room: 'pm:crypto:BTC', data: { price: 65000, timestamp: 20 }, expect: [{ type: 'crypto', asset: 'BTC', price: 65000 }] },
];

let server: StreamServer | undefined;
let client: DatastreamClient | undefined;
let engine: Engine | undefined;

afterEach(async () => {
  await engine?.stop();
  client?.close();
  await server?.close();
  engine = undefined;
  client = undefined;
  server = undefined;
});

describe('every room family through a real socket, the client and the engine', () => {
  it('covers every family of the registry except unknown', () => {
    const covered = new Set(FRAMES.map((f) => ROOM_FAMILIES.find((fam) => fam.match(f.room.split(':')))?.name));
    expect([...covered].sort()).toEqual([...new Set(ROOM_FAMILIES.map((f) => f.name))].filter((n) => n !== 'unknown').sort());
  });

  it('delivers each frame as the domain events a strategy sees, with the right mint, side, percentages and prices', async () => {
    server = await startStreamServer(KEY);
    const clock = manualClock(1_700_000_000_000);
    client = createDatastreamClient({ url: server.url, apiKey: KEY, clock, random: seededRandom(3) });
    const seen: DomainEvent[] = [];
    const record = (e: DomainEvent): void => void seen.push(e);
    const recorder = defineStrategy({
      id: 'recorder',
      params: z.strictObject({}),
      rooms: () => FRAMES.map((f) => f.room),
      onLaunch: record,
      onGraduating: record,
      onGraduated: record,
      onCurve: record,
      onLiquidity: record,
      onTrade: record,
      onSafety: record,
      onPrice: record,
      onStats: record,
      onWalletPnl: record,
      onDca: record,
      onPrediction: record,
      onCrypto: record,
    });
    const executor = createPaperExecutor({ clock, market: { get: () => undefined }, latencyMs: 1 });
    engine = createEngine({
      feed: client,
      executor,
      clock,
      random: seededRandom(1),
      strategies: [instantiateStrategy(recorder, {})],
      risk: { maxOpenPositions: 1 },
      startingCashLamports: 1_000_000_000n,
      execution: { slippageBps: 100, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    });
    await engine.start();
    await client.whenOpen();
    await waitFor(() => server!.open()[0]?.rooms.size === FRAMES.length, 'joins');
    for (const f of FRAMES) server.publish(f.room, f.data);
    const want = FRAMES.reduce((n, f) => n + f.expect.length, 0);
    await waitFor(() => seen.length >= want, `${want} domain events`);
    for (const f of FRAMES) {
      const got = seen.filter((e) => e.room === f.room);
      expect(got, f.room).toHaveLength(f.expect.length);
      f.expect.forEach((e, i) => expect(got[i], f.room).toMatchObject(e));
    }
    const stats = client.stats();
    expect(stats.invalidPayloads).toBe(0);
    expect(stats.rejectedByFamily).toEqual({});
    expect(engine.stats.badFrames).toBe(0);
  });

  it('counts rejects per room family with a sample reason, and keeps the frames that follow', async () => {
    server = await startStreamServer(KEY);
    const clock = manualClock(1_000);
    client = createDatastreamClient({ url: server.url, apiKey: KEY, clock, random: seededRandom(3) });
    const got: string[] = [];
    client.subscribe(`insider:${M}`, (m) => void got.push(m.family));
    client.subscribe(`transaction:${M}`, (m) => void got.push(m.family));
    await client.whenOpen();
    await waitFor(() => server!.open()[0]?.rooms.size === 2, 'joins');
    server.publish(`insider:${M}`, { totalSniperPercentage: 3 });
    server.publish(`transaction:${M}`, [
      { tx: 'X', type: 'buy', token: { from: { amount: 1 }, to: { address: M } } },
      { tx: 'Y', type: 'sell' },
    ]);
    server.sendRaw('not json');
    server.publish(`insider:${M}`, { totalInsiderPercentage: 3 });
    await waitFor(() => got.length === 2, 'valid frames after the rejects');
    expect(got).toEqual(['transaction', 'safety']);
    expect(client.stats().rejectedByFamily).toEqual({
      safety: { rejected: 1, sampleReason: "totalInsiderPercentage must be a number (the insider room's figure)", sampleRoom: `insider:${M}` },
      transaction: { rejected: 1, sampleReason: '[0] token.from.address must be a string', sampleRoom: `transaction:${M}` },
      frame: { rejected: 1, sampleReason: 'not JSON', sampleRoom: '' },
    });
    // the status panel shows them
    expect(formatRejects(client.stats().rejectedByFamily)).toBe(
      `  rejected frames: safety 1 (totalInsiderPercentage must be a number (the insider room's figure) on insider:${M}), transaction 1 ([0] token.from.address must be a string on transaction:${M}), frame 1 (not JSON)`,
    );
  });
});
