/**
 * A hostile Datastream server on a real socket (127.0.0.1): frames that are not JSON, random bytes,
 * JSON of the wrong shape, thousands of levels deep, of unknown type, wrong-typed payloads for
 * subscribed rooms, and frames larger than the client accepts. The process survives every one,
 * each frame is counted under the reject it is, the connection stays usable, and the heap returns
 * to where it was after a full GC. Standing fuzz test: fast profile in `npm test`, long in
 * `npm run test:e2e` (test/helpers/fuzz.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatastreamClient, type DatastreamClient, type DatastreamStats } from '../../src/client/datastream/index.js';
import { exceedsDepth } from '../../src/client/datastream/connection/frame-limits.js';
import { seededRandom } from '../../src/core/index.js';
import { FUZZ_TIMEOUT_MS, fuzzParams } from '../helpers/fuzz.js';
import { startStreamServer, waitFor, type StreamServer } from './helpers/stream-server.js';

const KEY = 'hostile-key-7a1';
const MAX_FRAME_BYTES = 64 * 1024;
const MAX_DEPTH = 64;
/** Open-object rooms (any object passes the guard; dedup identity reads the payload) and a checked one. */
const CURVE = 'venue_a:curve:50';
const LATEST = 'latest';
const LIQUIDITY = 'liquidity:MintA';
const SUBSCRIBED = [CURVE, LATEST, LIQUIDITY];

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

/** `{"a":{"a":...1...}}` or `[[...[1]...]]`, `levels` containers deep, as text (never built as an object). */
const nested = (levels: number, arrays: boolean): string =>
  arrays ? `${'['.repeat(levels)}1${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

type Expect = 'parseFailures' | 'tooDeepFrames' | 'unknownFrames' | 'serverErrors' | 'unroutedMessages' | 'invalidPayloads' | 'message';
interface HostileFrame {
  readonly kind: string;
  readonly data: string | Buffer;
  readonly expect: Expect;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const json = fc.jsonValue({ maxDepth: 4 });

const hostileFrame: fc.Arbitrary<HostileFrame> = fc.oneof(
  fc
    .string({ maxLength: 300 })
    .map((s) => ({ kind: 'not JSON', data: `{${s}`, expect: 'parseFailures' as const }))
    .filter((f) => {
      try {
        JSON.parse(f.data as string);
        return false;
      } catch {
        return true;
      }
    }),
  fc.uint8Array({ minLength: 1, maxLength: 2_000 }).map((b) => ({ kind: 'random bytes', data: Buffer.from(b), expect: 'parseFailures' as const })),
  json
    .filter((v) => !(isObject(v) && typeof v['type'] === 'string'))
    .map((v) => ({ kind: 'JSON of the wrong shape', data: JSON.stringify(v), expect: 'parseFailures' as const })),
  fc
    .record({ levels: fc.integer({ min: MAX_DEPTH, max: 6_000 }), arrays: fc.boolean(), where: fc.constantFrom('data', 'extra', 'top') })
    .map(({ levels, arrays, where }) => ({
      kind: `nested ${levels} deep in ${where}`,
      data:
        where === 'top'
          ? `{"type":"message","room":"${CURVE}","x":${nested(levels, arrays)}}`
          : where === 'data'
            ? `{"type":"message","room":"${CURVE}","data":{"x":${nested(levels, arrays)}}}`
            : `{"type":"message","room":"${LATEST}","data":{"mint":"M","extra":${nested(levels, arrays)}}}`,
      expect: 'tooDeepFrames' as const,
    })),
  fc
    .record({ type: fc.string({ maxLength: 20 }).filter((t) => !['message', 'ping', 'error'].includes(t)), body: json })
    .map(({ type, body }) => ({ kind: 'unknown type', data: JSON.stringify({ body, type }), expect: 'unknownFrames' as const })),
  fc
    .record({ message: fc.string({ maxLength: 100 }) })
    .map(({ message }) => ({ kind: 'server error', data: JSON.stringify({ type: 'error', message }), expect: 'serverErrors' as const })),
  fc
    .record({ room: fc.string({ maxLength: 40 }).filter((r) => !SUBSCRIBED.includes(r)), data: json })
    .map(({ room, data }) => ({ kind: 'unsubscribed room', data: JSON.stringify({ type: 'message', room, data }), expect: 'unroutedMessages' as const })),
  json
    .filter((r) => typeof r !== 'string')
    .map((room) => ({ kind: 'room not a string', data: JSON.stringify({ type: 'message', room, data: {} }), expect: 'parseFailures' as const })),
  fc.record({ room: fc.constantFrom(...SUBSCRIBED), data: json }).map(({ room, data }) => ({
    kind: `wrong-typed payload for ${room}`,
    data: JSON.stringify({ type: 'message', room, data }),
    // a payload of the wrong container type is always refused; other shapes may pass the guard (open objects)
    expect: (room === LIQUIDITY ? !Array.isArray(data) : !isObject(data)) ? ('invalidPayloads' as const) : ('message' as const),
  })),
);

/** Inputs that once broke the client: they run first on every fuzz run. */
const REGRESSIONS: [HostileFrame][] = [
  // issue 11: 4,000 levels in an open-object room overflowed the stack in the dedup fingerprint
  [
    {
      kind: 'issue 11: 4000 levels in a curve room',
      data: `{"type":"message","room":"${CURVE}","data":{"x":${nested(4_000, true)}}}`,
      expect: 'tooDeepFrames',
    },
  ],
  [
    {
      kind: 'issue 11: 4000 levels in a latest extra field',
      data: `{"type":"message","room":"${LATEST}","data":{"mint":"M","extra":${nested(4_000, false)}}}`,
      expect: 'tooDeepFrames',
    },
  ],
];

const REJECTS: readonly (keyof DatastreamStats)[] = [
  'parseFailures',
  'tooDeepFrames',
  'oversizedFrames',
  'frameErrors',
  'unknownFrames',
  'serverErrors',
  'unroutedMessages',
  'invalidPayloads',
];

describe('Datastream client against a hostile server (real socket)', () => {
  let server: StreamServer;
  let client: DatastreamClient;
  let delivered = 0;

  beforeAll(async () => {
    server = await startStreamServer(KEY);
    client = createDatastreamClient({
      url: server.url,
      apiKey: KEY,
      random: seededRandom(11),
      maxFrameBytes: MAX_FRAME_BYTES,
      maxFrameDepth: MAX_DEPTH,
      backoffBaseMs: 1,
      backoffCapMs: 20,
    });
    for (const room of SUBSCRIBED) client.subscribe(room, () => void delivered++);
    await client.whenOpen();
    await waitFor(() => server.open()[0]?.joins.length === SUBSCRIBED.length, 'joins');
  });

  afterAll(async () => {
    client.close();
    await server.close();
  });

  /** Sends `data` then a ping; the pong proves the client has handled the frame (one socket keeps order). */
  const sendAndSettle = async (data: string | Buffer): Promise<DatastreamStats> => {
    const conn = server.open()[0]!;
    const pongs = conn.pongs;
    conn.socket.send(data);
    conn.socket.send('{"type":"ping"}');
    await waitFor(() => conn.pongs > pongs, 'pong after a hostile frame');
    return client.stats();
  };

  it(
    'counts each generated hostile frame under its reject and keeps the same connection open',
    async () => {
      const connects = client.stats().connects;
      await fc.assert(
        fc.asyncProperty(hostileFrame, async (f) => {
          const before = client.stats();
          const after = await sendAndSettle(f.data);
          expect(after.frames - before.frames, f.kind).toBe(2);
          expect(after.frameErrors - before.frameErrors, f.kind).toBe(0);
          if (f.expect === 'message') expect(after.messages - before.messages, f.kind).toBe(1);
          else expect(after[f.expect] as number, f.kind).toBeGreaterThan(before[f.expect] as number);
        }),
        fuzzParams({ numRuns: 150, seed: 1101 }, REGRESSIONS),
      );
      expect(client.state).toBe('open');
      expect(client.stats().connects).toBe(connects);
    },
    FUZZ_TIMEOUT_MS,
  );

  it('delivers a payload exactly at the depth limit and refuses one level more', async () => {
    // frame (1) > data (2) > x: levels containers
    const at = await sendAndSettle(`{"type":"message","room":"${CURVE}","data":{"x":${nested(MAX_DEPTH - 2, false)}}}`);
    const over = await sendAndSettle(`{"type":"message","room":"${CURVE}","data":{"x":${nested(MAX_DEPTH - 1, false)}}}`);
    expect(over.tooDeepFrames - at.tooDeepFrames).toBe(1);
    expect(at.perRoom[CURVE]!.messages).toBe(over.perRoom[CURVE]!.messages);
    expect(exceedsDepth(JSON.parse(nested(MAX_DEPTH, true)), MAX_DEPTH)).toBe(false);
    expect(exceedsDepth(JSON.parse(nested(MAX_DEPTH + 1, true)), MAX_DEPTH)).toBe(true);
  });

  it('counts frames larger than maxFrameBytes, reconnects, and still delivers afterwards', async () => {
    const sizes = fc.sample(fc.integer({ min: MAX_FRAME_BYTES + 1, max: 4 * 1024 * 1024 }), { numRuns: 8, seed: 1102 });
    const start = client.stats();
    for (const size of sizes) {
      const connects = client.stats().connects;
      server.open()[0]!.socket.send(`{"type":"message","room":"${CURVE}","data":{"pad":"${'x'.repeat(size)}"}}`);
      await waitFor(
        () => client.stats().connects > connects && client.state === 'open' && server.open()[0]?.joins.length === SUBSCRIBED.length,
        'reconnect after an oversized frame',
      );
    }
    const end = client.stats();
    expect(end.oversizedFrames - start.oversizedFrames).toBe(sizes.length);
    const before = delivered;
    const s = await sendAndSettle(`{"type":"message","room":"${CURVE}","data":{"mint":"after-huge"}}`);
    expect(s.perRoom[CURVE]!.messages).toBe(end.perRoom[CURVE]!.messages + 1);
    await waitFor(() => delivered > before, 'delivery after the oversized frames');
  });

  it('an unfinished message followed by thousands of empty continuations is refused (1009), counted, and the client reconnects', async () => {
    const reasons: string[] = [];
    const off = client.onEvent((e) => {
      if (e.kind === 'malformed') reasons.push(e.reason);
    });
    const start = client.stats();
    const conn = server.open()[0]!;
    conn.socket.send('{"type":"message",', { fin: false });
    for (let i = 0; i < 5_000; i++) conn.socket.send('', { fin: false }); // empty continuations
    await waitFor(
      () => client.stats().connects > start.connects && client.state === 'open' && server.open()[0]?.joins.length === SUBSCRIBED.length,
      'reconnect after a message in too many frames',
    );
    off();
    expect(client.stats().oversizedFrames - start.oversizedFrames).toBe(1);
    expect(reasons).toContain('a message in more frames than one message may take; the socket was closed and will reconnect');
    const s = await sendAndSettle(`{"type":"message","room":"${CURVE}","data":{"mint":"after-fragments"}}`);
    expect(s.perRoom[CURVE]!.messages).toBe(start.perRoom[CURVE]!.messages + 1);
  });

  it(
    'returns the heap to where it was after a burst of hostile frames and a full GC',
    async () => {
      const frames = fc.sample(hostileFrame, { numRuns: 300, seed: 1103 });
      for (const f of frames.slice(0, 50)) await sendAndSettle(f.data); // warm up code paths and pools
      const base = heapMb();
      const rejectsBefore = REJECTS.reduce((n, k) => n + (client.stats()[k] as number), 0);
      const conn = server.open()[0]!;
      for (let round = 0; round < 3; round++) for (const f of frames) conn.socket.send(f.data);
      await sendAndSettle('{"type":"ping"}');
      const rejects = REJECTS.reduce((n, k) => n + (client.stats()[k] as number), 0) - rejectsBefore;
      expect(rejects).toBeGreaterThan(frames.length); // most frames are rejects; each counted
      expect(heapMb() - base).toBeLessThan(16);
    },
    FUZZ_TIMEOUT_MS,
  );
});
