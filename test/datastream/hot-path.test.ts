/**
 * Edges of the client's hot path (issue #14, speed): the room lookup cache, the reused fingerprint
 * scratch, the dedup window at its bound, fingerprints of batches above the scan limit, and one
 * clock reading per socket read. Router-level tests use the real router (the one the replay uses);
 * the clock test runs over a real socket on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, seededRandom, type UnixMs } from '../../src/core/index.js';
import {
  createDatastreamClient,
  rooms,
  SAFETY_FIELDS,
  type DatastreamClient,
  type DatastreamMessage,
  type SafetyRole,
} from '../../src/client/datastream/index.js';
import { createDedupWindow } from '../../src/client/datastream/dedup/dedup-window.js';
import { exceedsDepth, mayExceedDepth } from '../../src/client/datastream/connection/frame-limits.js';
import { fingerprintRows, rowFingerprints } from '../../src/client/datastream/dedup/event-key.js';
import { fpCheck, fpHi, fpInt, fpKey, fpLo, fpStart } from '../../src/client/datastream/dedup/fingerprint.js';
import { createRoomRouter, type RoomRouter } from '../../src/client/datastream/delivery/room-router.js';
import { parseRows, RESOLVED_ROOMS_MAX, resolveRoom } from '../../src/client/datastream/rooms/room-registry.js';
import { createStats } from '../../src/client/datastream/stats.js';
import { liquidityEvent } from './helpers/events.js';
import { startStreamServer, waitFor, type StreamServer } from './helpers/stream-server.js';

const AT = 1_000 as UnixMs;

const router = (dedupCapacity = 1_000): RoomRouter =>
  createRoomRouter({ maxQueue: 100, overflow: 'drop-oldest', dedupCapacity }, createStats(), {
    onHandlerError: (_room, e) => {
      throw e;
    },
    onOverflow: () => undefined,
    countDropped: () => undefined,
    countCoalesced: () => undefined,
    invalid: () => undefined,
  });

const swap = (tx: string, amount: number | string = 1): Record<string, unknown> => ({ tx, type: 'buy', amount, wallet: 'W', priceUsd: 0.1, time: 1 });

describe('room lookup', () => {
  it('finds the current entry of a room after it was left and joined again, and nothing while it is left', () => {
    const r = router();
    const room = 'liquidity:MintA';
    const first = r.add(room, () => undefined);
    expect(r.lookup(room)).toBe(r.rooms.get(room));
    expect(r.lookup(`${room}`.slice(0))).toBe(r.rooms.get(room)); // another string with the same text
    r.remove(first.sub);
    expect(r.lookup(room)).toBeUndefined();
    r.add(room, () => undefined);
    expect(r.lookup(room)).toBe(r.rooms.get(room));
    expect(r.lookup('liquidity:MintB')).toBeUndefined();
  });
});

describe('dedup window at its bound', () => {
  it('remembers exactly `capacity` events: the oldest is delivered again only once one more has come', () => {
    const capacity = 4;
    const r = router(capacity);
    const got: string[] = [];
    const room = 'transaction:MintA';
    r.add(room, (m: DatastreamMessage) => {
      for (const t of m.data as readonly { tx?: string }[]) got.push(t.tx ?? '');
    });
    const e = r.lookup(room)!;
    for (let i = 0; i < capacity; i++) r.route(e, [swap(`S${i}`)], AT, 'live');
    // full: every event is still known
    for (let i = 0; i < capacity; i++) expect(r.route(e, [swap(`S${i}`)], AT, 'live')).toBe(0);
    expect(r.dedup.size).toBe(capacity);
    expect(r.dedup.evicted).toBe(0);
    // one more evicts the oldest (S0) only
    expect(r.route(e, [swap(`S${capacity}`)], AT, 'live')).toBe(1);
    expect(r.dedup.evicted).toBe(1);
    expect(r.route(e, [swap('S1')], AT, 'live')).toBe(0);
    expect(r.route(e, [swap('S0')], AT, 'live')).toBe(1);
    expect(got).toEqual(['S0', 'S1', 'S2', 'S3', 'S4', 'S0']);
  });

  it('treats a fingerprint given as halves and as key and check as one entry', () => {
    const w = createDedupWindow(8);
    fpStart();
    fpInt(42);
    expect(w.admit(fpKey(), fpCheck(), 1)).toBe(true);
    expect(w.admitPair(fpHi(), fpLo(), 1)).toBe(false);
    expect(w.admitPair(fpHi(), fpLo(), 2)).toBe(true);
    expect(w.admit(fpKey(), fpCheck(), 2)).toBe(false);
    expect(w.admitPair(fpHi() ^ 1, fpLo(), 1)).toBe(true);
  });
});

describe('resolved rooms at the cache bound', () => {
  it('forget only the oldest room past the bound, never every room in use at once', () => {
    // a prefix no other test uses: the cache is process-wide
    const name = (i: number): string => `price:BoundMint${i}`;
    const first = resolveRoom(name(0));
    const kept: ReturnType<typeof resolveRoom>[] = [first];
    for (let i = 1; i < RESOLVED_ROOMS_MAX; i++) kept.push(resolveRoom(name(i)));
    const past = resolveRoom(name(RESOLVED_ROOMS_MAX));
    // every newer room is still the same resolved object (a clear would have made each of them new again)
    let resolvedAgain = 0;
    for (let i = 1; i < RESOLVED_ROOMS_MAX; i++) if (resolveRoom(name(i)) !== kept[i]) resolvedAgain++;
    expect(resolvedAgain).toBe(0);
    expect(resolveRoom(name(RESOLVED_ROOMS_MAX))).toBe(past);
    // the oldest of this test's rooms was forgotten to make room: it resolves again, equal but new
    const again = resolveRoom(name(0));
    expect(again).not.toBe(first);
    expect(again.name.parts).toEqual(first.name.parts);
    expect(again.scopeKey).toBe(first.scopeKey);
  });
});

describe('fingerprints of a batch', () => {
  it('give every row the same fingerprint whether the batch is scanned or counted in a map, identical rows distinct', () => {
    const r = resolveRoom('liquidity:MintA');
    const twin = liquidityEvent({ tx: 'twin' });
    // 40 rows (above the scan limit): a few events, each repeated
    const rows = Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? twin : liquidityEvent({ tx: `T${i % 6}` })));
    const items = parseRows(r, rows).items;
    const big = rowFingerprints(r, items);
    const small = rowFingerprints(r, items.slice(0, 20));
    expect(big.keys.slice(0, 20)).toEqual(small.keys);
    expect(big.checks.slice(0, 20)).toEqual(small.checks);
    // one distinct fingerprint per row: repeats are numbered
    expect(new Set(big.keys.map((k, i) => `${k}/${big.checks[i]!}`)).size).toBe(40);
    // halves agree with key and check
    const his = new Uint32Array(40);
    const los = new Uint32Array(40);
    fingerprintRows(r, items, his, los);
    for (let i = 0; i < 40; i++) {
      expect((his[i]! & 0x1fffff) * 2 ** 32 + los[i]!).toBe(big.keys[i]);
      expect(his[i]! >>> 21).toBe(big.checks[i]);
    }
  });

  it('mix a swap amount by value: a number, its decimal string and -0 for 0 are one amount', () => {
    const r = resolveRoom('transaction:MintA');
    const fp = (amount: number | string): string => {
      const f = rowFingerprints(r, parseRows(r, [swap('S', amount)]).items);
      return `${f.keys[0]!}/${f.checks[0]!}`;
    };
    expect(fp('1234.50')).toBe(fp(1234.5));
    expect(fp(-0)).toBe(fp(0));
    expect(fp('0')).toBe(fp(0));
    expect(fp(1234.5)).not.toBe(fp(1234.25));
  });
});

describe('router re-entered from a handler', () => {
  it('delivers the outer frame rows to every subscriber when a handler routes another frame meanwhile', () => {
    const r = router();
    const room = 'transaction:MintA';
    const seen: string[][] = [[], []];
    let nested = false;
    r.add(room, (m: DatastreamMessage) => {
      seen[0]!.push(...(m.data as readonly { tx?: string }[]).map((t) => t.tx ?? ''));
      if (!nested) {
        nested = true;
        r.route(r.lookup(room)!, [swap('N1'), swap('N2'), swap('N3')], AT, 'live');
      }
    });
    r.add(room, (m: DatastreamMessage) => void seen[1]!.push(...(m.data as readonly { tx?: string }[]).map((t) => t.tx ?? '')));
    const delivered = r.route(r.lookup(room)!, [swap('A'), swap('B')], AT, 'live');
    expect(delivered).toBe(2);
    expect(seen[0]).toEqual(['A', 'B', 'N1', 'N2', 'N3']);
    expect(seen[1]).toEqual(['N1', 'N2', 'N3', 'A', 'B']);
  });
});

describe('safety figures', () => {
  it("read each role's figure and previous value from every field the registry lists for it", () => {
    for (const [role, fields] of Object.entries(SAFETY_FIELDS) as [SafetyRole, (typeof SAFETY_FIELDS)[SafetyRole]][]) {
      const r = resolveRoom(`${role}:MintA`);
      fields.figure.forEach((figure, i) => {
        const v = r.family.parse({ [figure]: 10 + i }, r.name);
        expect(v, `${role}.${figure}`).toMatchObject({ role, figure: 10 + i });
        expect(r.family.parse({ [figure]: 'x' }, r.name), `${role}.${figure}`).toBe(`${figure} must be a number`);
      });
      fields.previous.forEach((previous, i) => {
        const v = r.family.parse({ [fields.figure[0]!]: 1, [previous]: 20 + i }, r.name);
        expect(v, `${role}.${previous}`).toMatchObject({ previousFigure: 20 + i });
        expect(r.family.parse({ [fields.figure[0]!]: 1, [previous]: 'x' }, r.name), `${role}.${previous}`).toBe(`${previous} must be a number or null`);
      });
    }
  });
});

describe('depth limit pre-check', () => {
  const nested = (levels: number): string => `${'{"a":'.repeat(levels - 1)}[1]${'}'.repeat(levels - 1)}`;

  it('clears a text with at most maxDepth brackets and never a text that is too deep', () => {
    expect(mayExceedDepth(nested(8), 8)).toBe(false);
    expect(mayExceedDepth(nested(9), 8)).toBe(true);
    expect(exceedsDepth(JSON.parse(nested(9)), 8)).toBe(true);
    for (let levels = 1; levels <= 12; levels++) {
      // whatever the text, a value deeper than the limit is never cleared by the pre-check
      if (exceedsDepth(JSON.parse(nested(levels)), 8)) expect(mayExceedDepth(nested(levels), 8)).toBe(true);
    }
  });

  it('leaves shallow frames with many brackets inside strings to the exact walk', () => {
    const text = JSON.stringify({ type: 'message', room: 'latest', data: { token: { mint: 'M', name: '{'.repeat(100) + '['.repeat(100) } } });
    expect(mayExceedDepth(text, 8)).toBe(true);
    expect(exceedsDepth(JSON.parse(text), 8)).toBe(false);
  });
});

describe('receive time (real socket on 127.0.0.1)', () => {
  let server: StreamServer | undefined;
  let client: DatastreamClient | undefined;
  afterEach(async () => {
    client?.close();
    await server?.close();
  });

  it('delivers a shallow frame whose strings hold more brackets than maxFrameDepth', async () => {
    const KEY = 'hot-path-key-42';
    server = await startStreamServer(KEY);
    client = createDatastreamClient({ url: server.url, apiKey: KEY, random: seededRandom(4), maxFrameDepth: 8 });
    const got: string[] = [];
    client.subscribe(rooms.latest(), (m) => void got.push(m.data.token.name ?? ''));
    await client.whenOpen();
    await waitFor(() => server!.open()[0]?.rooms.size === 1, 'join');
    const name = '{['.repeat(50);
    server.publish('latest', { token: { mint: 'M', name } });
    await waitFor(() => got.length === 1, 'delivery');
    expect(got).toEqual([name]);
    expect(client.stats().tooDeepFrames).toBe(0);
  });

  it('stamps each frame with the clock at its socket read, never a reading left from an earlier read', async () => {
    const KEY = 'hot-path-key-41';
    const clock = manualClock(5_000);
    server = await startStreamServer(KEY);
    client = createDatastreamClient({ url: server.url, apiKey: KEY, clock, random: seededRandom(3) });
    const got: number[] = [];
    const room = rooms.liquidity('MintA');
    client.subscribe(room, (m) => void got.push(m.receivedAt));
    await client.whenOpen();
    await waitFor(() => server!.open()[0]?.rooms.size === 1, 'join');
    server.publish(room, [liquidityEvent({ tx: 'R1' })]);
    await waitFor(() => got.length === 1, 'first frame');
    clock.advance(250);
    server.publish(room, [liquidityEvent({ tx: 'R2' })]);
    await waitFor(() => got.length === 2, 'second frame');
    expect(got).toEqual([5_000, 5_250]);
  });
});

describe('frames of one socket read (real socket on 127.0.0.1)', () => {
  let server: StreamServer | undefined;
  let client: DatastreamClient | undefined;
  afterEach(async () => {
    client?.close();
    await server?.close();
  });

  const start = async (key: string): Promise<{ server: StreamServer; client: DatastreamClient }> => {
    server = await startStreamServer(key);
    client = createDatastreamClient({ url: server.url, apiKey: key, random: seededRandom(5) });
    return { server, client };
  };
  const frame = (room: string, tx: string): string => JSON.stringify({ type: 'message', room, data: [liquidityEvent({ tx })] });

  it('handles a burst of 100 frames (several batches) in order, each once, with a ping among them, counting each frame as it is handled', async () => {
    const { server, client } = await start('hot-path-key-43');
    const room = rooms.liquidity('MintA');
    const got: { tx: string; frames: number }[] = [];
    client.subscribe(room, (m) => void got.push({ tx: m.data[0]!.tx, frames: client.framesReceived() }));
    await client.whenOpen();
    await waitFor(() => server.open()[0]?.rooms.size === 1, 'join');
    const texts = Array.from({ length: 100 }, (_, i) => frame(room, `B${i}`));
    texts.splice(40, 0, '{"type":"ping"}');
    server.sendBurst(texts);
    await waitFor(() => got.length === 100 && server.open()[0]!.pongs === 1, 'the burst and the pong');
    expect(got.map((g) => g.tx)).toEqual(Array.from({ length: 100 }, (_, i) => `B${i}`));
    // a handler sees the frames handled so far (the ping is the 41st frame), not the whole read
    expect(got.map((g) => g.frames)).toEqual(Array.from({ length: 100 }, (_, i) => (i < 40 ? i + 1 : i + 2)));
    expect(client.stats()).toMatchObject({ frames: 101, messages: 100, pings: 1, duplicates: 0 });
  });

  it('delivers nothing more to a handler that closed the client, even from the rest of the read', async () => {
    const { server, client } = await start('hot-path-key-44');
    const room = rooms.liquidity('MintA');
    const got: string[] = [];
    client.subscribe(room, (m) => {
      got.push(m.data[0]!.tx);
      if (got.length === 3) client.close();
    });
    await client.whenOpen();
    await waitFor(() => server.open()[0]?.rooms.size === 1, 'join');
    server.sendBurst(Array.from({ length: 10 }, (_, i) => frame(room, `C${i}`)));
    await waitFor(() => client.state === 'closed', 'close from the handler');
    expect(got).toEqual(['C0', 'C1', 'C2']);
  });

  it('with sliceMs hands a burst over across turns: in order, each once, counted as handled, I/O served in between', async () => {
    const KEY = 'hot-path-key-45';
    server = await startStreamServer(KEY);
    const c = createDatastreamClient({ url: server.url, apiKey: KEY, random: seededRandom(5), sliceMs: 0 });
    client = c;
    const room = rooms.liquidity('MintA');
    const got: { tx: string; frames: number; afterTurn: boolean }[] = [];
    let turned = false;
    c.subscribe(room, (m) => {
      got.push({ tx: m.data[0]!.tx, frames: c.framesReceived(), afterTurn: turned });
      if (got.length === 1) setImmediate(() => (turned = true));
    });
    await c.whenOpen();
    await waitFor(() => server!.open()[0]?.rooms.size === 1, 'join');
    server.sendBurst(Array.from({ length: 100 }, (_, i) => frame(room, `S${i}`)));
    await waitFor(() => got.length === 100, 'the burst');
    expect(got.map((g) => g.tx)).toEqual(Array.from({ length: 100 }, (_, i) => `S${i}`));
    expect(got.map((g) => g.frames)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // a 0 ms slice hands over one frame a turn: the macrotask set by the first handler ran before the last
    expect(got[0]!.afterTurn).toBe(false);
    expect(got.at(-1)!.afterTurn).toBe(true);
    expect(c.stats()).toMatchObject({ frames: 100, messages: 100, duplicates: 0 });
  });

  it('with sliceMs hands every waiting frame over before a socket event (a drop) is reported', async () => {
    const KEY = 'hot-path-key-46';
    server = await startStreamServer(KEY);
    const c = createDatastreamClient({ url: server.url, apiKey: KEY, random: seededRandom(5), sliceMs: 0, backoffBaseMs: 60_000, backoffCapMs: 60_000 });
    client = c;
    const room = rooms.liquidity('MintA');
    const seen: string[] = [];
    c.subscribe(room, (m) => void seen.push(m.data[0]!.tx));
    c.onEvent((e) => {
      if (e.kind === 'disconnected') seen.push('disconnected');
    });
    await c.whenOpen();
    await waitFor(() => server!.open()[0]?.rooms.size === 1, 'join');
    server.sendBurst(Array.from({ length: 50 }, (_, i) => frame(room, `D${i}`)));
    server.dropAll();
    await waitFor(() => seen.includes('disconnected'), 'the drop');
    // frames read before the drop are delivered, all before the drop is reported (a frame after the cut may be lost, never reordered)
    const last = seen.indexOf('disconnected');
    expect(seen.slice(0, last)).toEqual(Array.from({ length: last }, (_, i) => `D${i}`));
    expect(seen.slice(last + 1)).toEqual([]);
  });

  it('refuses a sliceMs that is not a number of milliseconds, naming the field', () => {
    expect(() => createDatastreamClient({ url: 'ws://127.0.0.1:1', apiKey: 'k', sliceMs: -1 })).toThrow(/sliceMs: must be a finite number/);
    expect(() => createDatastreamClient({ url: 'ws://127.0.0.1:1', apiKey: 'k', sliceMs: Number.NaN })).toThrow(/STREAM_INVALID_OPTIONS|sliceMs/);
  });
});
