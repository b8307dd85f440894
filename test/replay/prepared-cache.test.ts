/**
 * The prepared cache of a recording: its codec gives back exactly what JSON.parse gave (numbers bit
 * for bit, key order, `__proto__` as a key); a backtest from the cache writes the same decision log
 * byte for byte as from the recording files; and a cache that is corrupt, truncated, stale, from
 * another chainpilot version or of other recording files is rebuilt, never used.
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment, type LoadedDeployment } from '../../src/config/index.js';
import { createTreeWriter, readTreeAt, type TreeColumns } from '../../src/research/replay/prepared-codec.js';
import { CACHE_DIR_NAME, preparedCachePath, readRecordingPrepared } from '../../src/research/replay/prepared-cache.js';
import { K } from '../../src/research/replay/prepared-recording.js';
import { preparedCursor } from '../../src/research/replay/prepared-replay.js';
import { openRecordingStream } from '../../src/research/replay/recording-stream.js';
import { readRecording, resolveRecordingFiles } from '../../src/research/replay/recording-reader.js';
import { runBacktestJob } from '../../src/research/backtest/backtest-job.js';
import { runBacktest } from '../../src/research/backtest/run-backtest.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';

const root = mkdtempSync(join(tmpdir(), 'cp-prepared-'));
const file = 'config/paper-sim.yaml';
let loaded: LoadedDeployment;
/** A 15-minute simulator recording of config/paper-sim.yaml, as plain JSON Lines (so a test can edit it). */
const rec = join(root, 'rec');
let recFile: string;

beforeAll(async () => {
  loaded = loadDeployment(file);
  const gz = join(root, 'gz');
  await recordSimulator({ seed: 11, durationMs: 15 * 60_000, loaded, dir: gz, redactor: createRedactor() });
  mkdirSync(rec);
  const [f] = resolveRecordingFiles(gz);
  recFile = join(rec, 'session.0000.jsonl');
  writeFileSync(recFile, gunzipSync(readFileSync(f!)));
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh copy of the recording in its own directory (its cache starts empty). */
function copyOfRecording(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  copyFileSync(recFile, join(dir, 'session.0000.jsonl'));
  return dir;
}

/** Writes each value as one tree of a fresh writer and returns the columns and the trees' indexes. */
function written(...values: unknown[]): { cols: TreeColumns; at: number[] } {
  const w = createTreeWriter();
  const at = values.map((v) => w.write(v));
  return { cols: w.done(), at };
}

describe('prepared form tree codec', () => {
  it('reads back exactly what JSON.parse gave: numbers bit for bit, key order, nesting, __proto__ as a key', () => {
    const text =
      '{"b":1,"a":[-0,0.1,1e-300,1.7976931348623157e308,2147483647,2147483648,-2147483649,1767225657604,2.606083394683145e-5],' +
      '"10":"ten","2":"two","s":"ünï\\u0000€","n":null,"t":true,"f":false,"e":[],"o":{},"__proto__":{"x":1},"deep":[[[{"k":[1,"1"]}]]]}';
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const tree = { lines: [parsed, parsed], missing: undefined };
    const { cols, at } = written('before', tree, 7);
    const back = readTreeAt(cols, at[1]!) as typeof tree;
    expect(JSON.stringify(back)).toBe(JSON.stringify(tree));
    const got = back.lines[0]!;
    expect(Object.keys(got)).toEqual(Object.keys(parsed));
    expect(Object.is((got['a'] as number[])[0], -0)).toBe(true);
    expect(got['a']).toEqual(parsed['a']);
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).toEqual({ x: 1 });
    expect('missing' in back && back.missing === undefined).toBe(true);
    // its neighbours in the same columns are read from their own starts
    expect(readTreeAt(cols, at[0]!)).toBe('before');
    expect(readTreeAt(cols, at[2]!)).toBe(7);
  });

  it('keeps exact amounts as bigints and refuses values that are not plain data rather than storing them wrong', () => {
    const { cols, at } = written({ lamports: 18_446_744_073_709_551_615n });
    expect(readTreeAt(cols, at[0]!)).toEqual({ lamports: 18_446_744_073_709_551_615n });
    expect(() => createTreeWriter().write([new Date(0)])).toThrow(/plain object/);
    expect(() => createTreeWriter().write({ m: new Map() })).toThrow(/plain object/);
  });

  it('rejects columns whose string table does not hold what a tree points at', () => {
    const { cols, at } = written({ a: [1, 'x'] });
    expect(() => readTreeAt({ ...cols, strings: [] }, at[0]!)).toThrow(expect.objectContaining({ code: 'RECORDING_CACHE_CORRUPT' }));
  });
});

describe('prepared cache of a recording', () => {
  it('is built on first use and then replays the same recording, and the same decision log byte for byte', async () => {
    const dir = copyOfRecording('parity');
    const first = readRecordingPrepared(dir, { version: '1.0.0' });
    expect(first.cache.status).toBe('built');
    expect(first.cache.path.startsWith(join(dir, CACHE_DIR_NAME))).toBe(true);
    const second = readRecordingPrepared(dir, { version: '1.0.0' });
    expect(second.cache.status).toBe('hit');
    const raw = readRecording(dir);
    expect(second.recording.lineCount).toBe(raw.lines.length);
    expect(second.recording.files).toEqual(raw.files);
    expect(Buffer.from(second.recording.bytes).equals(Buffer.from(first.recording.bytes))).toBe(true);

    const streamed = await runBacktest({ loaded, recording: await openRecordingStream(dir) });
    const fromCache = await runBacktest({ loaded, recording: second.recording });
    expect(streamed.decisions.filter((d) => d.kind === 'fill').length).toBeGreaterThan(2);
    expect(fromCache.decisionLog).toBe(streamed.decisionLog);
    expect(fromCache.feed).toEqual(streamed.feed);
    expect(fromCache.summary).toEqual(streamed.summary);
  }, 60_000);

  it('rebuilds a cache with a flipped byte, a truncated one and one that is not a cache at all', () => {
    const dir = copyOfRecording('corrupt');
    const { cache, recording } = readRecordingPrepared(dir, { version: '1.0.0' });
    const good = readFileSync(cache.path);

    const flipped = Buffer.from(good);
    flipped[flipped.length - 200] = flipped[flipped.length - 200]! ^ 0x01;
    writeFileSync(cache.path, flipped);
    const a = readRecordingPrepared(dir, { version: '1.0.0' });
    expect(a.cache).toMatchObject({ status: 'rebuilt', reason: expect.stringContaining('checksum') });
    expect(Buffer.from(a.recording.bytes).equals(Buffer.from(recording.bytes))).toBe(true);
    expect(readFileSync(cache.path).equals(good)).toBe(true);

    writeFileSync(cache.path, good.subarray(0, good.length - 8));
    expect(readRecordingPrepared(dir, { version: '1.0.0' }).cache).toMatchObject({ status: 'rebuilt', reason: expect.stringContaining('truncated') });
    writeFileSync(cache.path, 'hello');
    expect(readRecordingPrepared(dir, { version: '1.0.0' }).cache).toMatchObject({ status: 'rebuilt', reason: 'not a prepared cache file' });
    expect(readRecordingPrepared(dir, { version: '1.0.0' }).cache.status).toBe('hit');
  });

  it('rebuilds a cache written by another chainpilot version', () => {
    const dir = copyOfRecording('version');
    expect(readRecordingPrepared(dir, { version: '1.0.0' }).cache.status).toBe('built');
    const b = readRecordingPrepared(dir, { version: '1.0.1' });
    expect(b.cache).toMatchObject({ status: 'rebuilt', reason: 'written by chainpilot 1.0.0, this is 1.0.1' });
    expect(readRecordingPrepared(dir, { version: '1.0.1' }).cache.status).toBe('hit');
  });

  it('rebuilds a stale cache when the recording changed, and replays the changed recording', () => {
    const dir = copyOfRecording('stale');
    const before = readRecordingPrepared(dir, { version: '1.0.0' });
    const path = join(dir, 'session.0000.jsonl');
    const lastT = before.recording.meta.lastT!;
    appendFileSync(path, `{"k":"gap","t":${lastT + 1},"s":${lastT},"e":${lastT + 1},"rooms":["graduated"]}\n`);
    const after = readRecordingPrepared(dir, { version: '1.0.0' });
    expect(after.cache).toMatchObject({ status: 'rebuilt', reason: expect.stringContaining('stale') });
    expect(after.recording.lineCount).toBe(before.recording.lineCount + 1);
    const cursor = preparedCursor(after.recording);
    while (cursor.index < after.recording.lineCount - 1) cursor.next();
    expect(cursor.kind).toBe(K.GAP);
    expect(cursor.gap()).toEqual({ startedAt: lastT, endedAt: lastT + 1, rooms: ['graduated'] });
  });

  it('does not use the cache of another recording put in its place', () => {
    const mine = copyOfRecording('mine');
    const other = join(root, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'session.0000.jsonl'), readFileSync(recFile, 'utf8').split('\n').slice(0, 50).join('\n') + '\n');
    const theirs = readRecordingPrepared(other, { version: '1.0.0' }).cache.path;
    const path = preparedCachePath([join(mine, 'session.0000.jsonl')]);
    mkdirSync(join(mine, CACHE_DIR_NAME));
    copyFileSync(theirs, path);
    const r = readRecordingPrepared(mine, { version: '1.0.0' });
    expect(r.cache).toMatchObject({ status: 'rebuilt', reason: expect.stringContaining('stale') });
    expect(r.recording.lineCount).toBe(readRecording(mine).lines.length);
  });

  it('replays from the recording prepared in memory when the cache cannot be written', () => {
    const dir = copyOfRecording('unwritable');
    const blocker = join(root, 'a-file');
    writeFileSync(blocker, 'not a directory');
    const r = readRecordingPrepared(dir, { version: '1.0.0', dir: join(blocker, 'cache') });
    expect(r.cache.status).toBe('unwritable');
    expect(r.recording.lineCount).toBe(readRecording(dir).lines.length);
  });

  it('is used by chainpilot backtest unless --no-cache, with the same decisions.jsonl either way', async () => {
    const dir = copyOfRecording('job');
    const off = await runBacktestJob({ file, data: dir, outDir: join(root, 'job-off'), cache: false });
    expect(off.cache.status).toBe('off');
    expect(existsSync(join(dir, CACHE_DIR_NAME))).toBe(false);
    const built = await runBacktestJob({ file, data: dir, outDir: join(root, 'job-built') });
    const hit = await runBacktestJob({ file, data: dir, outDir: join(root, 'job-hit') });
    expect([built.cache.status, hit.cache.status]).toEqual(['built', 'hit']);
    const decisions = (out: string): string => readFileSync(join(root, out, 'decisions.jsonl'), 'utf8');
    expect(decisions('job-hit')).toBe(decisions('job-off'));
    expect(decisions('job-built')).toBe(decisions('job-off'));
    expect(hit.report.fingerprint).toBe(off.report.fingerprint);
  }, 60_000);
});
