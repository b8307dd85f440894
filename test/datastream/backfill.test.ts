import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, seededRandom, type ManualClock } from '../../src/core/index.js';
import {
  createDatastreamClient,
  rooms,
  type BackfillSource,
  type DatastreamClient,
  type DatastreamEvent,
  type DatastreamMessage,
  type HistoryQuery,
} from '../../src/client/datastream/index.js';
import { startStreamServer, waitFor, type StreamServer } from './helpers/stream-server.js';
import { httpBackfillSource, startHistoryServer, type HistoryServer } from './helpers/history-server.js';
import { liquidityEvent } from './helpers/events.js';

const KEY = 'backfill-key-19c0';
const CAP = 1_000;

describe('Datastream REST backfill after a gap', () => {
  let stream: StreamServer | undefined;
  let history: HistoryServer | undefined;
  let client: DatastreamClient | undefined;
  let clock: ManualClock;
  let events: DatastreamEvent[];

  const make = (url: string, backfill: BackfillSource, extra: Record<string, number> = {}): DatastreamClient => {
    clock = manualClock(1_700_000_000_000);
    client = createDatastreamClient({ url, apiKey: KEY, clock, random: seededRandom(3), backoffBaseMs: 100, backoffCapMs: CAP, backfill, ...extra });
    events = [];
    client.onEvent((e) => events.push(e));
    return client;
  };

  afterEach(async () => {
    client?.close();
    await stream?.close();
    await history?.close();
    client = stream = history = undefined;
  });

  it('pages through REST history with the opaque cursor and merges it with the live stream without duplicates', async () => {
    stream = await startStreamServer(KEY);
    history = await startHistoryServer();
    const c = make(stream.url, httpBackfillSource(history.baseUrl), { backfillPageLimit: 2 });
    const got: DatastreamMessage<'liquidity'>[] = [];
    c.subscribe(rooms.liquidity('MintA'), (m) => void got.push(m));
    await c.whenOpen();
    await waitFor(() => stream!.open()[0]?.rooms.size === 1, 'join');

    const before = liquidityEvent({ time: clock.now() - 5 });
    history.rows.push({ ...before, time: before.time - 400 }); // REST keeps canonical block time
    stream.publish('liquidity:MintA', [before]);
    await waitFor(() => got.length === 1, 'live event');

    clock.advance(10);
    stream.dropAll();
    await waitFor(() => c.state === 'backoff', 'backoff');
    // during the gap: three actions at one timestamp (one tx: a removal and an addition, plus another), then one more
    const t = clock.now() + 5;
    const missed = [
      liquidityEvent({ tx: 'gapTx', type: 'remove_liquidity', time: t }),
      liquidityEvent({ tx: 'gapTx', type: 'add_liquidity', time: t }),
      liquidityEvent({ time: t }),
      liquidityEvent({ time: t + 1 }),
    ];
    history.rows.push(...missed);
    // an unrelated token's action must not come back
    history.rows.push(liquidityEvent({ time: t, tokens: [{ address: 'MintZ', amount: '1', amountRaw: '1', decimals: 0 }] }));
    clock.advance(CAP);
    await c.whenOpen();
    await c.backfillsIdle();
    // the server re-sends one gap event live after the reconnect: it is already delivered
    await waitFor(() => stream!.open()[0]?.rooms.size === 1, 'rejoin');
    stream.publish('liquidity:MintA', [missed[3]]);
    const after = liquidityEvent();
    stream.publish('liquidity:MintA', [after]);
    await waitFor(() => got.some((m) => m.data.some((e) => e.tx === after.tx)), 'live after backfill');

    const delivered = got.flatMap((m) => m.data.map((e) => `${m.origin}:${e.tx}:${e.type}:${e.time}`));
    expect(delivered).toEqual([
      `live:${before.tx}:add_liquidity:${before.time}`,
      ...missed.map((e) => `backfill:${e.tx}:${e.type}:${e.time}`),
      `live:${after.tx}:add_liquidity:${after.time}`,
    ]);
    expect(got.filter((m) => m.origin === 'backfill').every((m) => m.commitment === 'confirmed')).toBe(true);
    expect(history.requests).toBe(3); // [before, gapTx-remove], [gapTx-add, third], [fourth]
    const done = events.find((e) => e.kind === 'backfill-done');
    expect(done).toEqual({ kind: 'backfill-done', room: 'liquidity:MintA', rows: 4, pages: 3, truncated: false });
    expect(c.stats().duplicates).toBe(2);
    expect(c.stats().backfilledRows).toBe(4);
  });

  it('asks REST for the room scope, from the gap start minus the overlap, oldest first', async () => {
    stream = await startStreamServer(KEY);
    const queries: HistoryQuery[] = [];
    const source: BackfillSource = {
      fetchHistoryPage: async (q) => {
        queries.push(q);
        return { rows: [], hasNextPage: false };
      },
    };
    const c = make(stream.url, source, { backfillOverlapMs: 5_000 });
    c.subscribe(rooms.liquidity('MintA', { pool: 'PoolA', wallet: 'W1' }), () => {});
    c.subscribe(rooms.transactions('MintB', { enriched: true }), () => {});
    c.subscribe(rooms.liquidityPool('PoolA'), () => {}); // no token: REST cannot scope it
    c.subscribe(rooms.price('MintA'), () => {});
    await c.whenOpen();
    await waitFor(() => stream!.open()[0]?.rooms.size === 4, 'joins');
    const dropAt = clock.now();
    stream.dropAll();
    await waitFor(() => c.state === 'backoff', 'backoff');
    clock.advance(CAP);
    await c.whenOpen();
    await c.backfillsIdle();
    expect(queries).toEqual([
      { token: 'MintA', pool: 'PoolA', wallet: 'W1', events: 'liquidity', cursor: dropAt - 5_000, sortDirection: 'asc', limit: 500 },
      { token: 'MintB', events: 'all', cursor: dropAt - 5_000, sortDirection: 'asc', limit: 500, enrich: 'identity' },
    ]);
  });

  it('stops at backfillMaxPages and says the backfill was truncated', async () => {
    stream = await startStreamServer(KEY);
    history = await startHistoryServer();
    const c = make(stream.url, httpBackfillSource(history.baseUrl), { backfillPageLimit: 2, backfillMaxPages: 2 });
    const got: string[] = [];
    c.subscribe(rooms.liquidity('MintA'), (m) => void got.push(...m.data.map((e) => e.tx)));
    await c.whenOpen();
    await waitFor(() => stream!.open()[0]?.rooms.size === 1, 'join');
    stream.dropAll();
    await waitFor(() => c.state === 'backoff', 'backoff');
    for (let i = 0; i < 5; i++) history.rows.push(liquidityEvent({ tx: `m${i}`, time: clock.now() + i }));
    clock.advance(CAP);
    await c.whenOpen();
    await c.backfillsIdle();
    expect(got).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(events.find((e) => e.kind === 'backfill-done')).toEqual({ kind: 'backfill-done', room: 'liquidity:MintA', rows: 4, pages: 2, truncated: true });
  });

  it('keeps only swap rows when backfilling a transaction room from events=all', async () => {
    stream = await startStreamServer(KEY);
    history = await startHistoryServer();
    const c = make(stream.url, httpBackfillSource(history.baseUrl));
    const got: unknown[] = [];
    c.subscribe(rooms.transactions('MintA'), (m) => void got.push(...m.data));
    await c.whenOpen();
    await waitFor(() => stream!.open()[0]?.rooms.size === 1, 'join');
    stream.dropAll();
    await waitFor(() => c.state === 'backoff', 'backoff');
    const swap = { tx: 's1', type: 'buy', token: 'MintA', wallet: 'W', amount: '10', priceUsd: 0.5, volume: 5, time: clock.now() + 1 };
    history.rows.push(swap, liquidityEvent({ time: clock.now() + 2 }));
    clock.advance(CAP);
    await c.whenOpen();
    await c.backfillsIdle();
    expect(got).toEqual([expect.objectContaining({ mint: 'MintA', side: 'buy', tx: 's1', raw: swap })]);
  });

  it('retries a failing REST source with backoff on the clock, then reports STREAM_BACKFILL_FAILED and keeps streaming', async () => {
    stream = await startStreamServer(KEY);
    let calls = 0;
    const source: BackfillSource = {
      fetchHistoryPage: () => {
        calls++;
        return Promise.reject(new Error('HTTP 503'));
      },
    };
    const c = make(stream.url, source, { backfillRetries: 2 });
    const got: number[] = [];
    c.subscribe(rooms.liquidity('MintA'), (m) => void got.push(m.data.length));
    await c.whenOpen();
    await waitFor(() => stream!.open()[0]?.rooms.size === 1, 'join');
    stream.dropAll();
    await waitFor(() => c.state === 'backoff', 'backoff');
    clock.advance(CAP);
    await c.whenOpen();
    for (let i = 0; i < 2; i++) {
      await waitFor(() => calls === i + 1, `attempt ${i + 1}`);
      await new Promise((r) => setTimeout(r, 1));
      clock.advance(CAP);
    }
    await c.backfillsIdle();
    expect(calls).toBe(3);
    const failed = events.find((e) => e.kind === 'backfill-failed');
    expect(failed && failed.kind === 'backfill-failed' && failed.error.code).toBe('STREAM_BACKFILL_FAILED');
    expect(c.stats().backfillFailures).toBe(1);
    await waitFor(() => stream!.open()[0]?.rooms.size === 1, 'rejoin');
    stream.publish('liquidity:MintA', [liquidityEvent()]);
    await waitFor(() => got.length === 1, 'live continues');
  });
});
