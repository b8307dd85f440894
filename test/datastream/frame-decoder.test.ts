/**
 * FrameDecoder (src/client/datastream/connection/frame-decoder.ts) on its own: server frames encoded here
 * (unmasked, as a server sends them), cut into arbitrary chunks, decode to the same messages, pings
 * and close; every frame a server may not send is refused with the close code and `ws` error code
 * the RFC and `ws` use, and nothing is delivered after a refusal.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameDecoder, FrameError, isValidCloseCode, type FrameSink } from '../../src/client/datastream/connection/frame-decoder.js';
import { fuzzParams } from '../helpers/fuzz.js';
import { bytes, closeBody, frame } from './helpers/ws-frames.js';

// ---------------------------------------------------------------------------------------------
// a server-side encoder

/** A bare header announcing `len` payload bytes (16- or 64-bit length as needed), no payload. */
function header(opcode: number, len: number, fin = true): Buffer {
  const b0 = (fin ? 0x80 : 0) | opcode;
  if (len < 126) return Buffer.from([b0, len]);
  if (len < 65_536) return Buffer.from([b0, 126, len >> 8, len & 0xff]);
  const b = Buffer.alloc(10);
  b[0] = b0;
  b[1] = 127;
  b.writeUInt32BE(Math.floor(len / 2 ** 32), 2);
  b.writeUInt32BE(len >>> 0, 6);
  return b;
}

// ---------------------------------------------------------------------------------------------
// a recording sink

type Ev = { t: 'message'; data: Buffer } | { t: 'ping'; data: Buffer } | { t: 'close'; code: number; reason: string };

class Recorder implements FrameSink {
  readonly events: Ev[] = [];
  reading = true;
  /** Turns `reading` false once this many messages have arrived (a handler that closes the socket). */
  stopAfterMessages = Infinity;
  /** Turns `reading` false on a close frame (as the real socket does). */
  stopOnClose = false;

  message(buf: Buffer, start: number, end: number): void {
    if (!(start >= 0 && start <= end && end <= buf.length)) throw new Error(`bad range [${start}, ${end}) of ${buf.length} bytes`);
    this.events.push({ t: 'message', data: Buffer.from(buf.subarray(start, end)) });
    if (this.messages().length >= this.stopAfterMessages) this.reading = false;
  }
  ping(payload: Buffer): void {
    this.events.push({ t: 'ping', data: Buffer.from(payload) });
  }
  close(code: number, reason: string): void {
    this.events.push({ t: 'close', code, reason });
    if (this.stopOnClose) this.reading = false;
  }
  messages(): string[] {
    return this.events.filter((e) => e.t === 'message').map((e) => e.data.toString());
  }
}

function decoder(maxPayload = 1 << 20): { d: FrameDecoder; sink: Recorder } {
  const sink = new Recorder();
  return { d: new FrameDecoder(maxPayload, sink), sink };
}

/** Pushes `chunks` and returns the FrameError the decoder threw (fails the test when it threw none). */
function refusal(d: FrameDecoder, ...chunks: Buffer[]): FrameError {
  for (const c of chunks) {
    try {
      d.push(c);
    } catch (e) {
      expect(e).toBeInstanceOf(FrameError);
      return e as FrameError;
    }
  }
  throw new Error('the decoder accepted what it should have refused');
}

// ---------------------------------------------------------------------------------------------
// property: any cut of any valid stream decodes to the same events

/** Payload sizes around every length encoding boundary: 7-bit, 16-bit, and (rarely) 64-bit. */
const size = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0, max: 130 }) },
  { weight: 2, arbitrary: fc.constantFrom(0, 1, 125, 126, 127, 65_535) },
  { weight: 3, arbitrary: fc.integer({ min: 126, max: 2_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 65_535 }) },
  { weight: 1, arbitrary: fc.integer({ min: 65_536, max: 70_000 }) },
);
const controlPayload = fc.record({ n: fc.integer({ min: 0, max: 125 }), seed: fc.nat() }).map(({ n, seed }) => bytes(n, seed));

type Item =
  | { kind: 'message'; opcode: 1 | 2; parts: Buffer[]; between: Array<Array<{ ping: boolean; data: Buffer }>> }
  | { kind: 'ping'; data: Buffer }
  | { kind: 'pong'; data: Buffer };

const controlFrame = fc.record({ ping: fc.boolean(), data: controlPayload });
const item: fc.Arbitrary<Item> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        opcode: fc.constantFrom(1 as const, 2 as const),
        parts: fc.array(fc.record({ n: size, seed: fc.nat() }), { minLength: 1, maxLength: 4 }),
        between: fc.array(fc.array(controlFrame, { maxLength: 2 }), { minLength: 3, maxLength: 3 }),
      })
      .map(({ opcode, parts, between }) => ({ kind: 'message' as const, opcode, parts: parts.map((p) => bytes(p.n, p.seed)), between })),
  },
  { weight: 1, arbitrary: controlPayload.map((data) => ({ kind: 'ping' as const, data })) },
  { weight: 1, arbitrary: controlPayload.map((data) => ({ kind: 'pong' as const, data })) },
);

/** The stream and the events a correct decoder reports for it. */
function encode(items: Item[], close: { code: number; reason: string } | null): { stream: Buffer; expected: Ev[] } {
  const frames: Buffer[] = [];
  const expected: Ev[] = [];
  for (const it of items) {
    if (it.kind === 'ping') {
      frames.push(frame(9, it.data));
      expected.push({ t: 'ping', data: it.data });
    } else if (it.kind === 'pong') frames.push(frame(10, it.data));
    else {
      it.parts.forEach((part, i) => {
        const last = i === it.parts.length - 1;
        frames.push(frame(i === 0 ? it.opcode : 0, part, { fin: last }));
        // control frames between fragments (RFC 6455 5.4): delivered at once, in stream order
        if (!last)
          for (const c of it.between[i % it.between.length]!) {
            frames.push(frame(c.ping ? 9 : 10, c.data));
            if (c.ping) expected.push({ t: 'ping', data: c.data });
          }
      });
      expected.push({ t: 'message', data: Buffer.concat(it.parts) });
    }
  }
  if (close) {
    frames.push(frame(8, closeBody(close.code, close.reason)));
    expected.push({ t: 'close', ...close });
  }
  return { stream: Buffer.concat(frames), expected };
}

/** Cuts `stream` into chunks: all single bytes, or sizes taken in turn from `sizes`. */
function cut(stream: Buffer, sizes: number[], singleBytes: boolean): Buffer[] {
  const chunks: Buffer[] = [];
  let p = 0;
  let i = 0;
  while (p < stream.length) {
    const n = singleBytes ? 1 : sizes[i++ % sizes.length]!;
    // a copy, as a socket read would be: the decoder may not rely on chunks being views of one buffer
    chunks.push(Buffer.from(stream.subarray(p, p + n)));
    p += n;
  }
  return chunks;
}

const chunkSize = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 3 }) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 16 }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 100_000 }) },
);

const same = (actual: Ev[], expected: Ev[]): void => {
  const show = (e: Ev): string => (e.t === 'close' ? `close ${e.code} ${e.reason}` : `${e.t} ${e.data.length} ${e.data.subarray(0, 32).toString('hex')}`);
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => {
    const x = expected[i]!;
    expect(show(a)).toBe(show(x));
    if (a.t !== 'close' && x.t !== 'close') expect(a.data.equals(x.data)).toBe(true);
  });
};

describe('FrameDecoder: any stream, cut anywhere', () => {
  it('delivers exactly the messages, pings and close that were sent, in order, and holds nothing at the end', () => {
    fc.assert(
      fc.property(
        fc.array(item, { minLength: 1, maxLength: 8 }),
        fc.option(fc.record({ code: fc.constantFrom(1000, 1001, 1011, 3000, 4999), reason: fc.string({ maxLength: 20 }) })),
        fc.array(chunkSize, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        (items, close, sizes, single) => {
          const { stream, expected } = encode(items, close);
          const { d, sink } = decoder(1 << 20);
          for (const c of cut(stream, sizes, single && stream.length <= 20_000)) d.push(c);
          same(sink.events, expected);
          expect(d.pending).toBe(0);
        },
      ),
      fuzzParams({ numRuns: 200, seed: 0x6465_636f }),
    );
  });

  it('every cut point of a stream with each length encoding (header cut anywhere) decodes the same', () => {
    const { stream, expected } = encode(
      [
        { kind: 'message', opcode: 1, parts: [bytes(5, 1)], between: [] },
        { kind: 'message', opcode: 2, parts: [bytes(300, 2)], between: [] },
        { kind: 'message', opcode: 2, parts: [bytes(65_536, 3)], between: [] },
        { kind: 'message', opcode: 1, parts: [bytes(3, 4), bytes(200, 5), bytes(0, 6)], between: [[{ ping: true, data: bytes(4, 7) }], []] },
        { kind: 'ping', data: bytes(125, 8) },
      ],
      { code: 1000, reason: 'done' },
    );
    // cuts inside and around each header, and a sweep of two-way cuts across the whole stream
    const cuts = new Set<number>();
    for (let c = 1; c < 40; c++) cuts.add(c);
    for (let c = 300; c < 330; c++) cuts.add(c);
    for (let c = 330; c < 350; c++) cuts.add(c);
    for (let c = 1; c < stream.length; c += 997) cuts.add(c);
    for (let c = stream.length - 300; c < stream.length; c++) cuts.add(c);
    for (const c of cuts) {
      const { d, sink } = decoder(1 << 20);
      d.push(Buffer.from(stream.subarray(0, c)));
      d.push(Buffer.from(stream.subarray(c)));
      same(sink.events, expected);
      expect(d.pending).toBe(0);
    }
  });

  it('holds the bytes of an unfinished frame as pending, and only those', () => {
    const { d, sink } = decoder();
    const f = frame(2, bytes(1_000, 9));
    d.push(Buffer.concat([frame(1, 'a'), f.subarray(0, 3)]));
    expect(sink.messages()).toEqual(['a']);
    expect(d.pending).toBe(3);
    d.push(f.subarray(3, 500));
    expect(d.pending).toBe(500);
    d.push(f.subarray(500));
    expect(d.pending).toBe(0);
    expect(sink.events.at(-1)).toMatchObject({ t: 'message' });
    expect((sink.events.at(-1) as { data: Buffer }).data.equals(bytes(1_000, 9))).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// refusals

describe('FrameDecoder: frames a server may not send', () => {
  /** Each refusal, then proof the decoder takes nothing more: a valid frame later is not delivered. */
  const refuses = (chunks: Buffer[], closeCode: number, code: string, maxPayload = 1 << 20): Recorder => {
    const { d, sink } = decoder(maxPayload);
    const e = refusal(d, ...chunks);
    expect({ closeCode: e.closeCode, code: e.code, name: e.name }).toEqual({ closeCode, code, name: 'FrameError' });
    const before = sink.events.length;
    expect(() => d.push(frame(1, 'after'))).not.toThrow();
    expect(() => d.push(Buffer.concat([frame(9, 'p'), frame(1, 'after2'), frame(8, closeBody(1000))]))).not.toThrow();
    expect(sink.events.length).toBe(before);
    expect(d.pending).toBe(0);
    return sink;
  };

  it('a masked frame: 1002 WS_ERR_UNEXPECTED_MASK', () => {
    refuses([frame(1, 'hi', { mask: true })], 1002, 'WS_ERR_UNEXPECTED_MASK');
    // refused on its first two bytes
    refuses([frame(1, 'hi', { mask: true }).subarray(0, 2)], 1002, 'WS_ERR_UNEXPECTED_MASK');
  });

  it('RSV1, RSV2 or RSV3 set (no extension was negotiated): 1002', () => {
    refuses([frame(1, 'hi', { rsv: 0b100 })], 1002, 'WS_ERR_UNEXPECTED_RSV_1');
    for (const [rsv, code] of [
      [0b010, 'WS_ERR_UNEXPECTED_RSV_2_3'],
      [0b001, 'WS_ERR_UNEXPECTED_RSV_2_3'],
      [0b111, 'WS_ERR_UNEXPECTED_RSV_1'],
    ] as const) {
      const { d } = decoder();
      const e = refusal(d, frame(1, 'hi', { rsv }));
      expect(e.closeCode).toBe(1002);
      expect(e.code).toBe(code); // as `ws` names them
    }
  });

  it('reserved opcodes 3-7 and 11-15: 1002 WS_ERR_INVALID_OPCODE', () => {
    for (const op of [3, 4, 5, 6, 7, 11, 12, 13, 14, 15]) {
      refuses([frame(op, 'x')], 1002, 'WS_ERR_INVALID_OPCODE');
      refuses([frame(op, 'x', { fin: false })], 1002, 'WS_ERR_INVALID_OPCODE');
    }
  });

  it('a fragmented control frame (ping, pong, close without FIN): 1002 WS_ERR_EXPECTED_FIN', () => {
    for (const op of [8, 9, 10]) refuses([frame(op, op === 8 ? closeBody(1000) : 'x', { fin: false })], 1002, 'WS_ERR_EXPECTED_FIN');
  });

  it('a control payload over 125 bytes: 1002 WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH, on its header', () => {
    for (const op of [8, 9, 10]) {
      refuses([frame(op, bytes(126, op))], 1002, 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH');
      refuses([header(op, 126)], 1002, 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH');
    }
    // 125 is allowed
    const { d, sink } = decoder();
    d.push(frame(9, bytes(125, 1)));
    expect(sink.events).toHaveLength(1);
  });

  it('a close frame with a one-byte payload: 1002 WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH', () => {
    refuses([frame(8, Buffer.from([0x03]))], 1002, 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH');
  });

  it('invalid close codes are refused (1002 WS_ERR_INVALID_CLOSE_CODE); valid ones are reported', () => {
    for (const code of [0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65_535]) {
      expect(isValidCloseCode(code)).toBe(false);
      refuses([frame(8, closeBody(code, 'r'))], 1002, 'WS_ERR_INVALID_CLOSE_CODE');
    }
    for (const code of [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4001, 4999]) {
      expect(isValidCloseCode(code)).toBe(true);
      const { d, sink } = decoder();
      d.push(frame(8, closeBody(code, 'why')));
      expect(sink.events).toEqual([{ t: 'close', code, reason: 'why' }]);
    }
  });

  it('a continuation frame with no message started: 1002 WS_ERR_INVALID_OPCODE', () => {
    refuses([frame(0, 'x')], 1002, 'WS_ERR_INVALID_OPCODE');
    refuses([frame(0, 'x', { fin: false })], 1002, 'WS_ERR_INVALID_OPCODE');
    // also right after a complete fragmented message
    const sink = refuses([frame(1, 'a', { fin: false }), frame(0, 'b'), frame(0, 'c')], 1002, 'WS_ERR_INVALID_OPCODE');
    expect(sink.messages()).toEqual(['ab']);
  });

  it('a new text or binary frame inside a fragmented message: 1002 WS_ERR_INVALID_OPCODE', () => {
    refuses([frame(1, 'a', { fin: false }), frame(1, 'b')], 1002, 'WS_ERR_INVALID_OPCODE');
    refuses([frame(2, 'a', { fin: false }), frame(0, 'b', { fin: false }), frame(2, 'c', { fin: false })], 1002, 'WS_ERR_INVALID_OPCODE');
    // in another chunk
    refuses([frame(1, 'a', { fin: false }), frame(9, 'p'), frame(2, 'b')], 1002, 'WS_ERR_INVALID_OPCODE');
  });

  it('a frame over maxPayload is refused as soon as its header arrives, before any payload byte: 1009 WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', () => {
    const max = 1_000;
    // 16-bit length, whole header in one chunk
    refuses([header(2, max + 1)], 1009, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', max);
    // 64-bit length
    refuses([header(1, 2 ** 40)], 1009, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', max);
    refuses([header(1, 70_000)], 1009, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', 65_536);
    // 7-bit length under a tiny maxPayload
    refuses([header(1, 11)], 1009, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', 10);
    // the header arrives a byte at a time: refused on the byte that completes the length, not later
    for (const h of [header(2, max + 1), header(2, 2 ** 33)]) {
      const { d } = decoder(max);
      for (let i = 0; i < h.length - 1; i++) expect(() => d.push(h.subarray(i, i + 1))).not.toThrow();
      const e = refusal(d, h.subarray(h.length - 1));
      expect([e.closeCode, e.code]).toEqual([1009, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH']);
    }
    // after a complete frame in the same chunk
    const sink = refuses([Buffer.concat([frame(1, 'ok'), header(1, max + 1)])], 1009, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', max);
    expect(sink.messages()).toEqual(['ok']);
    // exactly maxPayload is accepted
    const { d, sink: s2 } = decoder(max);
    d.push(frame(2, bytes(max, 1)));
    expect(s2.events).toHaveLength(1);
  });

  it('a fragmented message whose total exceeds maxPayload: 1009 WS_ERR_UNSUPPORTED_MESSAGE_LENGTH on the fragment that crosses it', () => {
    const max = 1_000;
    const { d, sink } = decoder(max);
    d.push(frame(1, bytes(600, 1), { fin: false }));
    d.push(frame(9, bytes(100, 2))); // control frames do not count
    d.push(frame(0, bytes(300, 3), { fin: false }));
    const e = refusal(d, header(0, 101, true)); // 600 + 300 + 101 > 1000: refused on the header alone
    expect([e.closeCode, e.code]).toEqual([1009, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH']);
    expect(sink.messages()).toEqual([]);
    // exactly maxPayload in fragments is accepted
    const ok = decoder(max);
    ok.d.push(Buffer.concat([frame(2, bytes(600, 1), { fin: false }), frame(0, bytes(300, 3), { fin: false }), frame(0, bytes(100, 4))]));
    expect(ok.sink.events).toHaveLength(1);
    // the limit is per message: the next message starts from zero
    ok.d.push(frame(2, bytes(max, 5)));
    expect(ok.sink.events).toHaveLength(2);
  });

  it('a 64-bit length over 2^53 - 1: 1009 WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH', () => {
    const over = Buffer.from([0x82, 127, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]); // 2^53
    refuses([over], 1009, 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH', Number.MAX_SAFE_INTEGER);
    refuses(
      [Buffer.from([0x82, 127, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
      1009,
      'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH',
      Number.MAX_SAFE_INTEGER,
    );
    // 2^53 - 1 itself is only a (very) large frame: waited for, not refused for its length encoding
    const { d } = decoder(Number.MAX_SAFE_INTEGER);
    expect(() => d.push(Buffer.from([0x82, 127, 0x00, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))).not.toThrow();
    expect(d.pending).toBe(10);
  });

  it('a refusal inside a chunk delivers the frames before it, then nothing', () => {
    const sink = refuses([Buffer.concat([frame(1, 'one'), frame(9, 'p'), frame(1, 'two'), frame(3, 'bad'), frame(1, 'three')])], 1002, 'WS_ERR_INVALID_OPCODE');
    expect(sink.messages()).toEqual(['one', 'two']);
  });

  it('a refusal while a frame is pending: the carried frame and the rest are dropped', () => {
    const { d, sink } = decoder();
    const big = frame(2, bytes(500, 1));
    d.push(big.subarray(0, 100));
    expect(d.pending).toBe(100);
    const e = refusal(d, Buffer.concat([big.subarray(100), frame(1, 'x', { mask: true })]));
    expect(e.code).toBe('WS_ERR_UNEXPECTED_MASK');
    expect(sink.events).toHaveLength(1); // the completed frame before the bad one
    expect(d.pending).toBe(0);
    d.push(frame(1, 'later'));
    expect(sink.events).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// the sink's `reading` flag, and close frames

describe('FrameDecoder: reading and close', () => {
  it('a sink whose reading turns false inside message stops delivery of the rest of that chunk', () => {
    const { d, sink } = decoder();
    sink.stopAfterMessages = 1;
    d.push(Buffer.concat([frame(1, 'first'), frame(1, 'second'), frame(9, 'p'), frame(1, 'third')]));
    expect(sink.messages()).toEqual(['first']);
    expect(sink.events).toHaveLength(1);
    expect(d.pending).toBe(0);
  });

  it('also when the message that turns it false completed a frame carried over from the previous chunk', () => {
    const { d, sink } = decoder();
    sink.stopAfterMessages = 1;
    const first = frame(2, bytes(300, 1));
    d.push(first.subarray(0, 7));
    d.push(Buffer.concat([first.subarray(7), frame(1, 'second'), frame(1, 'third').subarray(0, 3)]));
    expect(sink.events).toHaveLength(1);
    expect(d.pending).toBe(0); // the partial frame after it is not kept either
  });

  it('and when the message is a fragmented one, completed by its last continuation', () => {
    const { d, sink } = decoder();
    sink.stopAfterMessages = 1;
    d.push(Buffer.concat([frame(1, 'a', { fin: false }), frame(0, 'b'), frame(1, 'c')]));
    expect(sink.messages()).toEqual(['ab']);
  });

  it('a close frame without payload reports 1005 and an empty reason', () => {
    const { d, sink } = decoder();
    d.push(frame(8));
    expect(sink.events).toEqual([{ t: 'close', code: 1005, reason: '' }]);
  });

  it('a close frame with code and reason reports both (UTF-8 reason, split across chunks too)', () => {
    const { d, sink } = decoder();
    d.push(frame(8, closeBody(4001, 'bye ✓')));
    expect(sink.events).toEqual([{ t: 'close', code: 4001, reason: 'bye ✓' }]);
    const f = frame(8, closeBody(1000, 'done'));
    for (let c = 1; c < f.length; c++) {
      const { d: d2, sink: s2 } = decoder();
      d2.push(f.subarray(0, c));
      d2.push(f.subarray(c));
      expect(s2.events).toEqual([{ t: 'close', code: 1000, reason: 'done' }]);
    }
  });

  it('nothing after a close frame in the same chunk is delivered (even to a sink that is still reading)', () => {
    const { d, sink } = decoder();
    d.push(Buffer.concat([frame(1, 'before'), frame(8, closeBody(1000)), frame(1, 'after'), frame(9, 'p'), frame(1, 'partial').subarray(0, 4)]));
    expect(sink.events).toEqual([
      { t: 'message', data: Buffer.from('before') },
      { t: 'close', code: 1000, reason: '' },
    ]);
    expect(d.pending).toBe(0);
  });

  it('nothing after a close frame is delivered when the sink stops reading on close (as the socket does), however the bytes are cut', () => {
    const stream = Buffer.concat([frame(1, 'before'), frame(8, closeBody(1001, 'away')), frame(1, 'after'), frame(9, 'p')]);
    for (let c = 1; c < stream.length; c++) {
      const { d, sink } = decoder();
      sink.stopOnClose = true;
      d.push(stream.subarray(0, c));
      if (sink.reading) d.push(stream.subarray(c)); // the socket pushes no read after its sink stopped reading
      expect(sink.events).toEqual([
        { t: 'message', data: Buffer.from('before') },
        { t: 'close', code: 1001, reason: 'away' },
      ]);
    }
  });

  // The decoder itself ends at a close frame, whatever its sink says (RFC 6455 section 5.5.1):
  it('stops at a close frame completed by the next chunk, even while the sink still reads', () => {
    // the close frame is finished from the carried bytes; the rest of that chunk is not read
    const closeFrame = frame(8, closeBody(1000, 'bye'));
    const { d, sink } = decoder();
    d.push(closeFrame.subarray(0, 3));
    d.push(Buffer.concat([closeFrame.subarray(3), frame(1, 'after close')]));
    expect(sink.events).toEqual([{ t: 'close', code: 1000, reason: 'bye' }]);
  });

  it('decodes nothing pushed after a close frame', () => {
    const { d, sink } = decoder();
    d.push(frame(8, closeBody(1000, 'bye')));
    d.push(Buffer.concat([frame(1, 'after close'), frame(9, 'p')]));
    expect(sink.events).toEqual([{ t: 'close', code: 1000, reason: 'bye' }]);
  });
});

// ---------------------------------------------------------------------------------------------
// fragment count (issue 29: empty continuations grew the heap to 4.5 GB)

describe('FrameDecoder: the number of frames in one message is bounded', () => {
  /** A fragmented text message of `sizes.length` frames (the first, then continuations), FIN on the last one when `finish`. */
  const fragmented = (sizes: number[], finish: boolean): Buffer =>
    Buffer.concat(sizes.map((n, i) => frame(i === 0 ? 1 : 0, bytes(n, i + 1), { fin: finish && i === sizes.length - 1 })));

  it('a message in at most maxFragments frames (empty ones too) arrives whole; one frame more is 1009 WS_ERR_TOO_MANY_FRAGMENTS, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) }), {
          minLength: 1,
          maxLength: 80,
        }),
        fc.array(chunkSize, { minLength: 1, maxLength: 8 }),
        (maxFragments, sizes, chunkSizes) => {
          const sink = new Recorder();
          const d = new FrameDecoder(1 << 20, sink, maxFragments);
          const stream = fragmented(sizes, true);
          let error: unknown;
          for (const c of cut(stream, chunkSizes, false)) {
            try {
              d.push(c);
            } catch (e) {
              error = e;
              break;
            }
          }
          if (sizes.length <= maxFragments) {
            expect(error).toBeUndefined();
            expect(sink.messages()).toEqual([Buffer.concat(sizes.map((n, i) => bytes(n, i + 1))).toString()]);
          } else {
            expect(error).toBeInstanceOf(FrameError);
            expect([(error as FrameError).closeCode, (error as FrameError).code]).toEqual([1009, 'WS_ERR_TOO_MANY_FRAGMENTS']);
            expect(sink.events).toEqual([]);
            expect(d.pending).toBe(0);
          }
        },
      ),
      fuzzParams({ numRuns: 300, seed: 2901 }),
    );
  });

  it('an unfinished frame followed by a million 2-byte empty continuations ends with 1009 after the default limit, holding no fragment', () => {
    const { d, sink } = decoder();
    const empties = Buffer.alloc(2 * 1_000_000);
    for (let i = 0; i < empties.length; i += 2) empties[i] = 0x00; // continuation, no FIN, length 0
    const start = frame(1, 'x', { fin: false });
    let error: FrameError | undefined;
    let frames = 0;
    try {
      d.push(start);
      // fed in socket-sized reads, as a hostile server would write them
      for (let p = 0; p < empties.length; p += 65_536) {
        d.push(empties.subarray(p, p + 65_536));
        frames = Math.min(1_000_000, (p + 65_536) / 2);
      }
    } catch (e) {
      error = e as FrameError;
    }
    expect(error?.code).toBe('WS_ERR_TOO_MANY_FRAGMENTS');
    expect(error?.closeCode).toBe(1009);
    expect(frames).toBeLessThan(65_536); // refused within the first read after the limit, not after the million
    expect(sink.events).toEqual([]);
    expect(d.pending).toBe(0);
  });
});
