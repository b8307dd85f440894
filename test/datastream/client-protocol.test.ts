import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock, seededRandom } from '../../src/core/index.js';
import type { StreamFeed } from '../../src/engine/events/feed-port.js';
import {
  createDatastreamClient,
  rooms,
  type DatastreamClient,
  type DatastreamEvent,
  type DatastreamMessage,
  type LiquidityEvent,
} from '../../src/client/datastream/index.js';
import { startStreamServer, waitFor, type StreamServer } from './helpers/stream-server.js';
import { liquidityEvent } from './helpers/events.js';

const KEY = 'test-key-5f2c9a';

describe('Datastream client protocol (real ws server on 127.0.0.1)', () => {
  let server: StreamServer;
  let client: DatastreamClient;
  let events: DatastreamEvent[];
  const clock = manualClock(1_000_000);

  beforeEach(async () => {
    server = await startStreamServer(KEY);
    client = createDatastreamClient({ url: server.url, apiKey: KEY, clock, random: seededRandom(1) });
    events = [];
    client.onEvent((e) => events.push(e));
    await client.whenOpen();
  });

  afterEach(async () => {
    client.close();
    await server.close();
  });

  it('satisfies the engine StreamFeed port', () => {
    const feed: StreamFeed = client;
    expect(typeof feed.subscribe).toBe('function');
  });

  it('sends one join for two subscribers of a room and one leave after the last unsubscribes', async () => {
    const room = rooms.liquidity('MintA');
    const a = client.subscribe(room, () => {});
    const b = client.subscribe(room, () => {});
    await waitFor(() => server.open()[0]!.joins.length === 1, 'join');
    a();
    a(); // a second call of the same unsubscribe is a no-op
    expect(client.rooms()).toEqual([room]);
    b();
    await waitFor(() => server.open()[0]!.leaves.length === 1, 'leave');
    const c = server.open()[0]!;
    expect(c.joins).toEqual(['liquidity:MintA']);
    expect(c.leaves).toEqual(['liquidity:MintA']);
    expect(client.rooms()).toEqual([]);
  });

  it('writes the joins and leaves of one turn after it, and nothing for a room joined and left within the turn', async () => {
    const brief = rooms.liquidity('MintBrief');
    const kept = rooms.liquidity('MintKept');
    client.subscribe(brief, () => {})();
    client.subscribe(kept, () => {});
    expect(client.rooms()).toEqual([kept]);
    // Frames of one socket arrive in order: once the later join is in, an earlier one would be too.
    await waitFor(() => server.open()[0]!.joins.length >= 1, 'join');
    expect(server.open()[0]!.joins).toEqual([kept]);
    expect(server.open()[0]!.leaves).toEqual([]);
  });

  it('keeps per-room counters only for rooms joined now: a left room leaves the totals, not the map', async () => {
    for (let i = 0; i < 50; i++) {
      const room = rooms.liquidity(`Mint${i}`);
      let got = 0;
      const off = client.subscribe(room, () => void got++);
      await waitFor(() => server.open()[0]!.rooms.has(room), 'join');
      server.publish(room, [liquidityEvent()]);
      await waitFor(() => got === 1, 'delivered');
      expect(client.stats().perRoom[room]!.messages).toBe(1);
      off();
      expect(client.stats().perRoom[room]).toBeUndefined();
    }
    const s = client.stats();
    expect(Object.keys(s.perRoom)).toEqual([]);
    expect(s.messages).toBe(50);
    // a room joined again starts its counters afresh
    const again = rooms.liquidity('Mint0');
    let got = 0;
    client.subscribe(again, () => void got++);
    await waitFor(() => server.open()[0]!.rooms.has(again), 'join again');
    server.publish(again, [liquidityEvent()]);
    await waitFor(() => got === 1, 'delivered again');
    expect(client.stats().perRoom[again]!.messages).toBe(1);
  });

  it('answers every ping with a pong', async () => {
    for (let i = 0; i < 3; i++) server.sendRaw(JSON.stringify({ type: 'ping' }));
    await waitFor(() => server.open()[0]!.pongs === 3, 'three pongs');
    expect(client.stats().pings).toBe(3);
    expect(client.stats().bytes).toBe(3 * Buffer.byteLength(JSON.stringify({ type: 'ping' })));
  });

  it('delivers typed, checked liquidity arrays and keeps fields the spec does not document', async () => {
    const got: DatastreamMessage<'liquidity'>[] = [];
    client.subscribe(rooms.liquidity('MintA'), (m) => void got.push(m));
    await waitFor(() => server.open()[0]!.rooms.size === 1, 'join');
    const e = liquidityEvent({ extraField: { nested: 1 } });
    server.publish('liquidity:MintA', [e]);
    await waitFor(() => got.length === 1, 'message');
    const m = got[0]!;
    expect(m.origin).toBe('live');
    expect(m.commitment).toBe('processed');
    expect(m.receivedAt).toBe(clock.now());
    expect(m.data[0]!.tx).toBe(e.tx);
    expect(m.data[0]!.extraField).toEqual({ nested: 1 });
  });

  it('survives malformed JSON, non-object frames, unknown frame types and server errors, reporting each', async () => {
    const got: DatastreamMessage[] = [];
    client.subscribe('latest', (m) => void got.push(m));
    await waitFor(() => server.open()[0]!.rooms.size === 1, 'join');
    server.sendRaw('{"type":"message","room":"lat');
    server.sendRaw('[1,2,3]');
    server.sendRaw(JSON.stringify({ type: 'ack', room: 'latest' }));
    server.sendRaw(JSON.stringify({ type: 'error', message: 'room limit reached' }));
    server.sendRaw(JSON.stringify({ type: 'message', room: 42, data: {} }));
    server.publish('latest', { token: { name: 'A', symbol: 'A', mint: 'MintA' }, pools: [{ market: 'venue_a', poolId: 'P' }] });
    await waitFor(() => got.length === 1, 'the valid message after the bad frames');
    const s = client.stats();
    expect(s.parseFailures).toBe(3);
    expect(s.unknownFrames).toBe(1);
    expect(s.serverErrors).toBe(1);
    expect(events.filter((e) => e.kind === 'malformed').map((e) => (e as { reason: string }).reason)).toEqual([
      'not JSON',
      'not an object with a string type',
      'message without a string room',
    ]);
    expect(events).toContainEqual({ kind: 'unknown-frame', frameType: 'ack', frame: { type: 'ack', room: 'latest' } });
    expect(events).toContainEqual({ kind: 'server-error', frame: { type: 'error', message: 'room limit reached' } });
    expect(client.state).toBe('open');
  });

  it('refuses a text frame of invalid UTF-8 alone (counted, never parsed) and keeps the socket, while a U+FFFD sent as valid UTF-8 is delivered', async () => {
    const got: DatastreamMessage<'launch'>[] = [];
    client.subscribe(rooms.latest(), (m) => void got.push(m));
    await waitFor(() => server.open()[0]!.rooms.size === 1, 'join');
    const conn = server.open()[0]!;
    const frame = (name: string): string => JSON.stringify({ type: 'message', room: 'latest', data: { token: { mint: `Mint${name}`, name } } });
    // a lone continuation byte and a truncated sequence inside a JSON string: the JSON would parse
    // if the bytes were decoded leniently (as U+FFFD), so only the UTF-8 check can refuse them
    for (const bad of [Buffer.from([0x80]), Buffer.from([0xe2, 0x82])]) {
      const [head, tail] = frame('X').split('X') as [string, string];
      conn.socket.send(Buffer.concat([Buffer.from(head), bad, Buffer.from(tail)]), { binary: false });
    }
    conn.socket.send(frame('\uFFFD'), { binary: false });
    conn.socket.send(frame('after'), { binary: false });
    await waitFor(() => got.length === 2, 'the two valid frames');
    expect(got.map((m) => m.data.token.name)).toEqual(['\uFFFD', 'after']);
    const s = client.stats();
    expect(s.parseFailures).toBe(2);
    expect(s.rejectedByFamily['frame']).toMatchObject({ rejected: 2, sampleReason: 'not valid UTF-8' });
    expect(events.filter((e) => e.kind === 'malformed').map((e) => (e as { reason: string }).reason)).toEqual(['not valid UTF-8', 'not valid UTF-8']);
    expect(client.state).toBe('open');
    expect(s.connects).toBe(1);
  });

  it('drops invalid rows of a liquidity frame, keeps the valid ones, and counts the rejects', async () => {
    const got: DatastreamMessage<'liquidity'>[] = [];
    client.subscribe(rooms.liquidity('MintA'), (m) => void got.push(m));
    await waitFor(() => server.open()[0]!.rooms.size === 1, 'join');
    const good1 = liquidityEvent();
    const good2 = liquidityEvent();
    const badAmount = liquidityEvent({ tokens: [{ address: 'MintA', amount: '1.5', amountRaw: '1.5', decimals: 6 }] });
    const badTime = liquidityEvent({ time: '2024-01-01' });
    server.publish('liquidity:MintA', [good1, badAmount, good2, badTime]);
    server.publish('liquidity:MintA', { not: 'an array' });
    await waitFor(() => client.stats().invalidPayloads === 3, 'invalid counted');
    expect(got.map((m) => m.data.map((e) => e.tx))).toEqual([[good1.tx, good2.tx]]);
    const inv = events.filter((e) => e.kind === 'invalid-payload');
    expect(inv[0]).toEqual({ kind: 'invalid-payload', room: 'liquidity:MintA', reason: '[1] tokens[0].amountRaw must be an integer string', rejected: 2 });
    expect(client.stats().perRoom['liquidity:MintA']!.invalid).toBe(3);
  });

  it('checks the aggregated price message fully and rejects one with a missing field', async () => {
    const got: DatastreamMessage[] = [];
    const room = rooms.aggregatedPrice('MintA');
    client.subscribe(room, (m) => {
      got.push(m);
    });
    await waitFor(() => server.open()[0]!.rooms.size === 1, 'join');
    const good = {
      token: 'MintA',
      timestamp: 1_700_000_000_000,
      price: 0.0123,
      pool: 'P1',
      aggregated: { median: 0.0123, average: 0.0124, min: 0.012, max: 0.0129, poolCount: 3 },
      topPools: [{ poolId: 'P1', price: 0.0123, liquidity: 5000, market: 'venue_a-amm' }],
    };
    server.publish(room, { ...good, aggregated: { ...good.aggregated, poolCount: 'three' } });
    server.publish(room, good);
    await waitFor(() => got.length === 1, 'valid message');
    expect(got[0]!.data).toEqual(good);
    expect(client.stats().invalidPayloads).toBe(1);
  });

  it('delivers one event once to a handler subscribed to overlapping rooms, but keeps distinct events that share a tx', async () => {
    const seen: LiquidityEvent[] = [];
    const handler = (m: DatastreamMessage<'liquidity'>): void => void seen.push(...m.data);
    const other: LiquidityEvent[] = [];
    client.subscribe(rooms.liquidity('MintA'), handler);
    client.subscribe(rooms.liquidityPool('PoolA'), handler);
    client.subscribe(rooms.liquidityPool('PoolA', { enriched: true }), handler);
    client.subscribe(rooms.liquidityPool('PoolA'), (m) => void other.push(...m.data));
    await waitFor(() => server.open()[0]!.rooms.size === 3, 'three joins');
    // a rebalance: one removal and one addition in one tx, same pool and wallet
    const removal = liquidityEvent({ tx: 'rebalance1', type: 'remove_liquidity' });
    const addition = liquidityEvent({ tx: 'rebalance1', type: 'add_liquidity' });
    // two identical rows in one frame stay two events
    const twin = liquidityEvent({ tx: 'twin1' });
    server.publish('liquidity:MintA', [removal, addition, twin, twin]);
    server.publish('liquidity:pool:PoolA', [removal, addition, twin, twin]);
    server.publish('liquidity:pool:PoolA:enriched', [{ ...removal, identity: null, identityStatus: 'partial' }, addition, twin, twin]);
    await waitFor(() => client.stats().duplicates === 8 + 0, 'duplicates counted');
    expect(seen.map((e) => `${e.tx}/${e.type}`)).toEqual([
      'rebalance1/remove_liquidity',
      'rebalance1/add_liquidity',
      'twin1/add_liquidity',
      'twin1/add_liquidity',
    ]);
    expect(other).toHaveLength(4);
  });

  it('coalesces price rooms and bounds event queues for a consumer slower than a burst', async () => {
    client.close();
    client = createDatastreamClient({ url: server.url, apiKey: KEY, clock, random: seededRandom(1), maxQueue: 5 });
    events = [];
    client.onEvent((e) => events.push(e));
    await client.whenOpen();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const prices: number[] = [];
    const liq: string[] = [];
    client.subscribe(rooms.price('MintA'), async (m) => {
      prices.push((m.data as { price: number }).price);
      await gate;
    });
    client.subscribe(rooms.liquidity('MintA'), async (m) => {
      liq.push(...m.data.map((e) => e.tx));
      await gate;
    });
    await waitFor(() => server.open()[0]!.rooms.size === 2, 'joins');
    for (let i = 1; i <= 100; i++) {
      server.publish('price:token:MintA', { price: i });
      server.publish('liquidity:MintA', [liquidityEvent({ tx: `burst${i}` })]);
    }
    await waitFor(() => client.stats().frames >= 200, 'burst received');
    // the consumer is still stuck on its first message of each room
    expect(prices).toEqual([1]);
    expect(liq).toEqual(['burst1']);
    release();
    await waitFor(() => prices.length === 2 && liq.length === 6, 'queues drained');
    expect(prices).toEqual([1, 100]);
    expect(liq).toEqual(['burst1', 'burst96', 'burst97', 'burst98', 'burst99', 'burst100']);
    const s = client.stats();
    expect(client.framesReceived()).toBe(s.frames);
    expect(s.coalesced).toBe(98);
    expect(s.dropped).toBe(94);
    expect(events.filter((e) => e.kind === 'overflow')).toEqual([{ kind: 'overflow', room: 'liquidity:MintA', droppedTotal: 1 }]);
  });

  it('keeps delivering after a handler throws, and reports the error', async () => {
    const got: number[] = [];
    client.subscribe(rooms.price('MintA'), (m) => {
      const p = (m.data as { price: number }).price;
      if (p === 1) throw new Error('strategy bug');
      got.push(p);
    });
    await waitFor(() => server.open()[0]!.rooms.size === 1, 'join');
    server.publish('price:token:MintA', { price: 1 });
    server.publish('price:token:MintA', { price: 2 });
    await waitFor(() => got.length === 1, 'second message');
    expect(got).toEqual([2]);
    expect(client.stats().handlerErrors).toBe(1);
    expect(events.some((e) => e.kind === 'handler-error' && e.room === 'price:token:MintA')).toBe(true);
  });
});
