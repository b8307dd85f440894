/**
 * The streamed recording's first pass finds lines by their bytes (frames are counted, never decoded):
 * what it finds (start, end and drain marks by line index, the last good line's time, the count of
 * lines, every `ctx.data` answer) must be what reading each line as text finds, on files that make
 * the byte walk work hard: lines cut across the 256 KiB decompression chunks, empty lines, lines
 * that are not records (short ones, non-ASCII ones), a torn last line, a file without a trailing
 * newline, an uncompressed part, and a part that holds only its header.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { frameHead, openRecordingStream } from '../../src/research/replay/recording-stream.js';
import { inflated } from '../../src/research/replay/recording-file.js';
import { createReplayFeed } from '../../src/research/replay/replay-feed.js';
import type { StreamMessage } from '../../src/engine/events/feed-port.js';
import { parseRecordLine, RECORDING_FORMAT, type RecordLine } from '../../src/research/replay/recording-format.js';
import { recordingPaths, replayOrder, readRecordingFile } from '../../src/research/replay/recording-reader.js';
import type { DataLine, ReplayBounds } from '../../src/research/replay/prepared-replay.js';

const root = mkdtempSync(join(tmpdir(), 'cp-rec-stream-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const header = (part: number, startedAt: number): string =>
  JSON.stringify({
    k: 'header',
    format: RECORDING_FORMAT,
    chainpilot: 'test',
    rooms: [],
    endpoints: {},
    clock: 'simulator',
    startedAt,
    part,
    partStartedAt: startedAt,
    source: 'test',
  });

/** A frame line of about `pad` bytes (the padding sits in the frame's text so lines cross chunk boundaries at odd places). */
const frame = (t: number, pad: number): string => JSON.stringify({ t, f: { room: `price:M${t % 7}`, data: { price: t / 1e9, pad: 'x'.repeat(pad) } } });
const data = (t: number, n: number): string => JSON.stringify({ k: 'data', t, q: t - 5, path: '/tokens', query: { n }, body: { n } });

/** The first pass as it read lines before: every chunk's text split into lines (the reference). */
function referencePass(texts: readonly string[]): { bounds: ReplayBounds; dataLines: DataLine[] } {
  let index = 0;
  let startT: number | null = null;
  let lastEnd: [number, number] | undefined;
  let lastDrained: [number, number] | undefined;
  let lastT: number | null = null;
  const dataAt = new Map<number, DataLine>();
  for (const text of texts) {
    const lines = text
      .split('\n')
      .slice(1)
      .filter((l) => l.length > 0);
    for (const line of lines) {
      const i = index++;
      if (line.charCodeAt(2) !== 107) continue;
      let l: RecordLine;
      try {
        l = parseRecordLine(line);
      } catch {
        continue;
      }
      if (l.kind === 'start') startT ??= l.t;
      else if (l.kind === 'end') lastEnd = [i, l.t];
      else if (l.kind === 'drained') lastDrained = [i, l.t];
      else if (l.kind === 'data') dataAt.set(i, l);
    }
    for (let j = lines.length - 1; j >= 0; j--) {
      try {
        lastT = parseRecordLine(lines[j]!).t;
        break;
      } catch {
        // torn
      }
    }
  }
  const end = lastDrained ?? lastEnd;
  return {
    bounds: { startT, endIndex: end ? end[0] : -1, endT: end ? end[1] : null, lastT, totalLines: index },
    dataLines: [...dataAt.values()],
  };
}

describe('the streamed first pass', () => {
  it('finds what reading every line as text finds, across chunk boundaries, odd lines and parts', async () => {
    const dir = join(root, 'rec');
    mkdirSync(dir);
    const part0: string[] = [header(0, 1000), JSON.stringify({ k: 'start', t: 1000 })];
    // about 1.3 MB of lines of varying length: several 256 KiB chunks, lines cut at every kind of place
    for (let t = 1001; t < 1001 + 9000; t++) {
      part0.push(frame(t, (t * 37) % 251));
      if (t % 997 === 0) part0.push(data(t, t));
      if (t % 1499 === 0) part0.push('', 'x', '{}', '{"k"', 'é{"k":"end","t":1}', JSON.stringify({ k: 'conn', t, e: 'connected' }));
    }
    part0.push(JSON.stringify({ k: 'stop', t: 10_001 }), JSON.stringify({ k: 'drained', t: 10_002 }), JSON.stringify({ k: 'end', t: 10_003 }));
    const text0 = `${part0.join('\n')}\n`;
    // part 1, uncompressed: a data answer, an end mark, then a torn last line without a newline
    const text1 = `${[header(1, 10_004), frame(10_005, 3), data(10_006, 1), JSON.stringify({ k: 'end', t: 10_007 }), '{"t":10008,"f":{"ro'].join('\n')}`;
    // part 2: only its header, no newline
    const text2 = header(2, 10_009);
    writeFileSync(join(dir, 'r.0000.jsonl.gz'), gzipSync(text0));
    writeFileSync(join(dir, 'r.0001.jsonl'), text1);
    writeFileSync(join(dir, 'r.0002.jsonl.gz'), gzipSync(text2));

    const ordered = replayOrder(recordingPaths(dir).map((p) => readRecordingFile(p)));
    expect(ordered.map((f) => f.text)).toEqual([text0, text1, text2]);
    const want = referencePass([text0, text1, text2]);
    const got = await openRecordingStream(dir);
    expect(got.bounds).toEqual(want.bounds);
    expect(got.dataLines).toEqual(want.dataLines);
    // the case is not empty: it found the drain (preferred to the later end), data answers and the torn line's predecessor
    expect(want.bounds.endT).toBe(10_002);
    expect(want.bounds.lastT).toBe(10_007);
    expect(want.dataLines.length).toBe(10);
    // the cursor reads the same lines, joined across the chunks: every line that parses, at its time and index
    const wantLines: [number, number][] = [];
    let index = 0;
    for (const text of [text0, text1, text2])
      for (const l of text
        .split('\n')
        .slice(1)
        .filter((x) => x.length > 0)) {
        const i = index++;
        try {
          wantLines.push([i, parseRecordLine(l).t]);
        } catch {
          // a bad line: skipped
        }
      }
    const cursor = got.cursor();
    const gotLines: [number, number][] = [];
    for (;;) {
      if (cursor.next()) gotLines.push([cursor.index, cursor.t]);
      else if (!(await cursor.refill())) break;
    }
    expect(gotLines).toEqual(wantLines);
    expect(cursor.lines).toBe(wantLines.length);
    expect(cursor.badLines).toBe(index - wantLines.length);
  });
});

describe('a long header line', () => {
  // A download's header lists every token's rooms (421 KB at 341 tokens): longer than the 64 KiB
  // first tried, raw and (with rooms that do not compress) gzipped.
  const rooms = Array.from({ length: 6000 }, (_, i) => `price:token:${createHash('sha256').update(String(i)).digest('base64url')}`);
  const longHeader = (part: number, startedAt: number): string => JSON.stringify({ ...(JSON.parse(header(part, startedAt)) as object), rooms });
  const body = [JSON.stringify({ k: 'start', t: 1000 }), frame(1001, 3), data(1002, 2), JSON.stringify({ k: 'end', t: 1003 })];

  it.each([
    ['gzipped', 'r.0000.jsonl.gz', (t: string): Buffer => gzipSync(t)],
    ['plain', 'r.0000.jsonl', (t: string): Buffer => Buffer.from(t)],
  ])('is read whole from a %s file, and its lines after it', async (kind, name, encode) => {
    const dir = join(root, `long-${kind}`);
    mkdirSync(dir);
    const text = `${[longHeader(0, 1000), ...body].join('\n')}\n`;
    const bytes = encode(text);
    writeFileSync(join(dir, name), bytes);
    // the case is what it says: the header line and its gzipped form are both past the first 64 KiB
    expect(text.indexOf('\n')).toBeGreaterThan(1 << 17);
    expect(bytes.length).toBeGreaterThan(1 << 16);
    const got = await openRecordingStream(dir);
    expect(got.files[0]!.header.rooms).toEqual(rooms);
    expect(got.bounds).toEqual(referencePass([text]).bounds);
    expect(got.dataLines.length).toBe(1);
  });

  it('still names a file whose first line is not a header', async () => {
    const dir = join(root, 'long-not-header');
    mkdirSync(dir);
    writeFileSync(join(dir, 'r.0000.jsonl'), `${JSON.stringify({ k: 'start', t: 1, pad: rooms })}\n`);
    await expect(openRecordingStream(dir)).rejects.toThrow(/r\.0000\.jsonl: the first line is not a recording header/);
  });
});

describe('inflating a gzip file', () => {
  it("gives the same bytes chunk by chunk through node's handle as inflated whole (the fallback)", () => {
    // about 3 MB of text that compresses unevenly: many input reads and output chunks
    const text = Array.from({ length: 40_000 }, (_, i) => frame(i, (i * 53) % 97)).join('\n');
    const path = join(root, 'inflate.jsonl.gz');
    writeFileSync(path, gzipSync(text));
    const read = (internals: boolean): { text: string; chunks: number } => {
      const fd = openSync(path, 'r');
      try {
        const parts: string[] = [];
        for (const c of inflated(fd, Buffer.allocUnsafe(1 << 16), internals)) parts.push(c.toString('latin1'));
        return { text: parts.join(''), chunks: parts.length };
      } finally {
        closeSync(fd);
      }
    };
    const chunked = read(true);
    const whole = read(false);
    expect(chunked.text).toBe(text);
    expect(whole.text).toBe(text);
    expect(chunked.chunks).toBeGreaterThan(8);
  });
});

describe('the streamed cursor', () => {
  const M = 'MintA111111111111111111111111111111111111111';
  const msg = (t: number, room: string, data: unknown, rt?: number): string =>
    `{"t":${t}${rt === undefined ? '' : `,"rt":${rt}`},"f":${JSON.stringify({ type: 'message', room, data })}}`;
  const tick = (n: number): Record<string, unknown> => ({ token: M, price: n, price_quote: n / 100, time: n });

  it('reads a message frame by its bytes, and only the shapes it can read exactly', () => {
    const head = (line: string): ReturnType<typeof frameHead> => frameHead(Buffer.from(line), 0, Buffer.byteLength(line));
    expect(head(msg(1_767_225_600_000, `price:token:${M}`, tick(1)))).toEqual({ t: 1_767_225_600_000, room: `price:token:${M}` });
    expect(head(msg(5, 'holders:X', {}, 4))).toEqual({ t: 5, room: 'holders:X' });
    // anything else is parsed whole: a time that is not a whole number, a room with an escape or
    // non-ASCII, another key order, a non-message frame, a text frame, a line cut short, a mark
    for (const line of [
      '{"t":1.5,"f":{"type":"message","room":"a","data":{}}}',
      '{"t":1e3,"f":{"type":"message","room":"a","data":{}}}',
      '{"t":1,"rt":-2,"f":{"type":"message","room":"a","data":{}}}',
      '{"t":1,"f":{"type":"message","room":"a\\"b","data":{}}}',
      '{"t":1,"f":{"type":"message","room":"é","data":{}}}',
      '{"t":1,"f":{"type":"message","room":"","data":{}}}',
      '{"t":1,"f":{"room":"a","type":"message","data":{}}}',
      '{"t":1,"f":{"type":"joined","room":"a"}}',
      '{"t":1,"x":"not json"}',
      '{"t":1,"f":{"type":"message","room":"a","data":{}',
      '{"t":12345678901234567,"f":{"type":"message","room":"a","data":{}}}',
      '{"k":"end","t":1}',
    ])
      expect(head(line), line).toBeUndefined();
  });

  it('parses a frame only when someone holds its room at delivery; its counts are those of the parsed path', async () => {
    const dir = join(root, 'lazy');
    mkdirSync(dir);
    const held = `price:token:${M}`;
    const lines = [
      header(0, 1000),
      msg(1001, held, tick(1)),
      msg(1002, 'holders:Nobody', { token: 'Nobody', total: 3 }),
      // torn in the middle, yet its first bytes and end look like a frame: unrouted when nobody holds the room, bad when someone does
      '{"t":1003,"f":{"type":"message","room":"holders:Nobody","data":{"tok}}',
      '{"t":1004,"f":{"type":"message","room":"price:token:MintA111111111111111111111111111111111111111","data":{"tok}}',
      msg(1005, held, tick(2), 1004),
      '{"t":1006,"x":"not json"}',
    ];
    writeFileSync(join(dir, 'r.0000.jsonl.gz'), gzipSync(`${lines.join('\n')}\n`));
    const rec = await openRecordingStream(dir);
    const cursor = rec.cursor();
    const feed = createReplayFeed();
    const got: StreamMessage[] = [];
    feed.subscribe(held, (m) => got.push(m));
    const times: number[] = [];
    for (;;) {
      if (!cursor.next()) {
        if (await cursor.refill()) continue;
        break;
      }
      times.push(cursor.t);
      cursor.deliver(feed);
    }
    expect(times).toEqual([1001, 1002, 1003, 1004, 1005, 1006]);
    expect(got.map((m) => [m.receivedAt, (m.data as { price: number }).price])).toEqual([
      [1001, 1],
      [1004, 2],
    ]);
    expect(cursor.badLines).toBe(1);
    expect(cursor.firstBad).toContain('"t":1004');
    expect(cursor.lines).toBe(5);
    expect([...cursor.recordedRooms].sort()).toEqual(['holders:Nobody', held]);
    expect(feed.stats()).toMatchObject({ frames: 5, messages: 4, unrouted: 2, parseFailures: 1 });
  });
  it('delivers every frame with its own bytes although the reading reuses one buffer for every chunk', async () => {
    const dir = join(root, 'reuse');
    mkdirSync(dir);
    const held = `price:token:${M}`;
    // about 2 MB: eight 256 KiB chunks, each line's price and padding its own, lines cut at odd places
    const lines = [header(0, 1000)];
    for (let n = 1; n <= 12_000; n++) lines.push(msg(1000 + n, held, { ...tick(n), pad: 'p'.repeat((n * 53) % 199) }));
    writeFileSync(join(dir, 'r.0000.jsonl.gz'), gzipSync(`${lines.join('\n')}\n`));
    const cursor = (await openRecordingStream(dir)).cursor();
    const feed = createReplayFeed();
    const got: number[] = [];
    feed.subscribe(held, (m) => got.push((m.data as { price: number }).price));
    // delivered after the next chunk was read into the buffer the cursor's lines came from, a frame would read another line's bytes
    for (;;) {
      if (cursor.next()) cursor.deliver(feed);
      else if (!(await cursor.refill())) break;
    }
    expect(got).toEqual(Array.from({ length: 12_000 }, (_, i) => i + 1));
    expect(cursor.badLines).toBe(0);
  });

  it('fails on a torn gzip file as gunzip does (a recording cut off mid-stream)', async () => {
    const dir = join(root, 'torn-gz');
    mkdirSync(dir);
    const lines = [header(0, 1000)];
    for (let n = 1; n <= 3000; n++) lines.push(msg(1000 + n, `holders:T${n}`, { n, pad: 'q'.repeat(n % 97) }));
    const gz = gzipSync(`${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'r.0000.jsonl.gz'), gz.subarray(0, gz.length - 40));
    await expect(openRecordingStream(dir)).rejects.toMatchObject({ code: 'Z_BUF_ERROR', message: 'unexpected end of file' });
  });
});
