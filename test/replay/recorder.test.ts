/**
 * The recorder and the reader: raw frames stored verbatim with run-clock receive times, frames that
 * are not JSON kept as strings, rotation by size and by time, look-up answers recorded, manual
 * decisions kept as journaled, and no secret in any file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor, manualClock, silentLogger, type UnixMs } from '../../src/core/index.js';
import type { DatastreamEvent } from '../../src/client/datastream/index.js';
import { manualActionOf, manualDecision, type ManualAction } from '../../src/engine/orders/manual-actions.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';
import { createRecorder, endpointNames } from '../../src/research/record/recorder.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'cp-rec-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const readAll = (dir: string): string =>
  readdirSync(dir)
    .sort()
    .map((f) => {
      const raw = readFileSync(join(dir, f));
      return (f.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
    })
    .join('');

function fakeClient(): { onEvent(h: (e: DatastreamEvent) => void): () => void; emit(e: DatastreamEvent): void } {
  const hs = new Set<(e: DatastreamEvent) => void>();
  return { onEvent: (h) => (hs.add(h), () => void hs.delete(h)), emit: (e) => hs.forEach((h) => h(e)) };
}

describe('recorder', () => {
  it('stores each frame as received, with the run clock time and the feed time, and reads them back', async () => {
    const dir = tmp();
    const clock = manualClock(1_000);
    const rec = createRecorder({
      dir,
      source: 'unit',
      clock,
      clockKind: 'simulator',
      rooms: ['latest'],
      endpoints: { datastream: 'simulator' },
      redactor: createRedactor(),
      log: silentLogger(),
    });
    const client = fakeClient();
    rec.watch(client);
    await rec.start();
    const frame = '{"type":"message", "room":"latest","data":{"token":{"mint":"M1"},"x":1.50}}';
    clock.advance(5);
    rec.onRawFrame(frame, 999 as UnixMs);
    rec.onRawFrame('not json {', 1_005 as UnixMs);
    client.emit({ kind: 'malformed', reason: 'not JSON', sample: 'not json {' });
    client.emit({ kind: 'disconnected', at: 1_005 as UnixMs, reason: 'liveness' });
    client.emit({ kind: 'gap', gap: { startedAt: 1_005 as UnixMs, endedAt: 1_007 as UnixMs, rooms: ['latest'] } });
    await rec.stop();

    const text = readAll(dir);
    // Verbatim: spacing and number formatting of the frame survive (it is not re-serialised).
    expect(text).toContain(`{"t":1005,"rt":999,"f":${frame}}\n`);
    expect(text).toContain('{"t":1005,"x":"not json {"}\n');
    const r = readRecording(dir);
    expect(r.files[0]!.header).toMatchObject({ k: 'header', format: 1, rooms: ['latest'], clock: 'simulator', startedAt: 1_000, source: 'unit' });
    expect(r.lines.map((l) => l.kind)).toEqual(['start', 'frame', 'frame', 'conn', 'gap', 'end']);
    expect(r.lines[1]).toMatchObject({ kind: 'frame', t: 1_005, rt: 999, frame: { type: 'message', room: 'latest' } });
    expect(r.lines[2]).toMatchObject({ kind: 'frame', frame: undefined, text: 'not json {' });
    expect(r.badLines).toBe(0);
  });

  it('leaves a skipped frame out and keeps the last written frame when the skipped one turns out not to be JSON', async () => {
    const dir = tmp();
    const rec = createRecorder({
      dir,
      source: 'share',
      clock: manualClock(0),
      clockKind: 'simulator',
      rooms: [],
      endpoints: {},
      redactor: createRedactor(),
      log: silentLogger(),
      gzip: false,
    });
    const client = fakeClient();
    rec.watch(client);
    const kept = '{"type":"message","room":"mine","data":{}}';
    rec.onRawFrame(kept, 0 as UnixMs);
    rec.skipFrame(); // another holder's frame, not JSON: the client reports it right after
    client.emit({ kind: 'malformed', reason: 'not JSON', sample: '{"room":"theirs"' });
    await rec.stop();
    const text = readAll(dir);
    expect(text).toContain(`"f":${kept}}`);
    expect(text).not.toContain('theirs');
  });

  it('writes the same file with lines handed over in batches (record --sim), fix-ups of a frame still waiting included', async () => {
    const run = async (batchBytes: number | undefined): Promise<{ text: string; waitingBeforeFlush: number }> => {
      const dir = tmp();
      const clock = manualClock(0);
      const rec = createRecorder({
        dir,
        source: 'batch',
        clock,
        clockKind: 'simulator',
        rooms: [],
        endpoints: {},
        redactor: createRedactor(),
        log: silentLogger(),
        gzip: false,
        ...(batchBytes === undefined ? {} : { batchBytes }),
      });
      const client = fakeClient();
      rec.watch(client);
      await rec.start();
      for (let i = 0; i < 50; i++) {
        clock.advance(10);
        rec.onRawFrame(`{"type":"message","room":"r","data":{"i":${i}}}`, clock.now());
      }
      rec.onRawFrame('not json {', clock.now());
      client.emit({ kind: 'malformed', reason: 'not JSON', sample: 'not json {' });
      const waitingBeforeFlush = rec.writer.stats().waiting;
      rec.flush();
      await rec.stop();
      return { text: readAll(dir), waitingBeforeFlush };
    };
    const plain = await run(undefined);
    const batched = await run(1_000);
    expect(batched.text).toBe(plain.text);
    expect(batched.text).toContain('{"t":500,"x":"not json {"}\n');
    // in the default 64 KiB batches every line still waits; in 1000-byte batches the writing thread
    // has the full batches and the partial one waits for flush()
    expect(plain.waitingBeforeFlush).toBe(52);
    expect(batched.waitingBeforeFlush).toBeGreaterThan(0);
    expect(batched.waitingBeforeFlush).toBeLessThan(52);
  });

  it('starts new files instead of overwriting an earlier recording of the same name and second (a restarted deployment)', async () => {
    const dir = tmp();
    for (const i of [1, 2, 3]) {
      const rec = createRecorder({
        dir,
        source: 'dep',
        clock: manualClock(5_000),
        clockKind: 'wall',
        rooms: [],
        endpoints: {},
        redactor: createRedactor(),
        log: silentLogger(),
        gzip: false,
        unique: true,
      });
      rec.onRawFrame(`{"type":"message","room":"r","data":{"run":${i}}}`, 0 as UnixMs);
      await rec.stop();
    }
    expect(readdirSync(dir).sort()).toEqual(['dep-19700101T000005Z-2.0000.jsonl', 'dep-19700101T000005Z-3.0000.jsonl', 'dep-19700101T000005Z.0000.jsonl']);
    expect(readAll(dir)).toContain('"run":1');
  });

  it('rotates to a new part by size and by run-clock time, each part starting with a header', async () => {
    const dir = tmp();
    const clock = manualClock(0);
    const rec = createRecorder({
      dir,
      source: 'rot',
      clock,
      clockKind: 'wall',
      rooms: [],
      endpoints: {},
      redactor: createRedactor(),
      log: silentLogger(),
      gzip: false,
      rotateBytes: 2_048,
      rotateMs: 60_000,
    });
    const frame = `{"type":"message","room":"latest","data":{"pad":"${'x'.repeat(200)}"}}`;
    for (let i = 0; i < 20; i++) rec.onRawFrame(frame, clock.now()); // ~4.5 KB: two size rotations
    clock.advance(61_000);
    rec.onRawFrame(frame, clock.now()); // time rotation
    await rec.stop();
    const files = readdirSync(dir).sort();
    expect(files.length).toBe(4);
    for (const f of files) expect(readFileSync(join(dir, f), 'utf8').split('\n')[0]).toMatch(/^\{"k":"header"/);
    const r = readRecording(dir);
    expect(r.files.map((f) => f.header.part)).toEqual([0, 1, 2, 3]);
    expect(r.lines.filter((l) => l.kind === 'frame').length).toBe(21);
  });

  it('records ctx.data answers and failures with the time asked and the time answered', async () => {
    const dir = tmp();
    const clock = manualClock(0);
    const rec = createRecorder({ dir, source: 'data', clock, clockKind: 'wall', rooms: [], endpoints: {}, redactor: createRedactor(), log: silentLogger() });
    let release: (v: unknown) => void = () => undefined;
    const port = rec.data({
      get: (path) => (path === '/bad' ? Promise.reject(Object.assign(new Error('boom'), { code: 'HTTP_SERVER_ERROR' })) : new Promise((r) => (release = r))),
    });
    const p = port.get('/tokens/M1', { b: 2, a: 'x' });
    clock.advance(40);
    release({ holders: 12 });
    await expect(p).resolves.toEqual({ holders: 12 });
    await expect(port.get('/bad', undefined)).rejects.toThrow('boom');
    await rec.stop();
    const data = readRecording(dir).lines.filter((l) => l.kind === 'data');
    expect(data).toEqual([
      { kind: 'data', t: 40, askedAt: 0, key: '/tokens/M1?a=x&b=2', path: '/tokens/M1', body: { holders: 12 }, error: undefined },
      { kind: 'data', t: 40, askedAt: 40, key: '/bad?', path: '/bad', body: undefined, error: { code: 'HTTP_SERVER_ERROR', message: 'boom' } },
    ]);
  });

  it('never writes an API key, a URL with a key or a wallet secret into a recording', async () => {
    const dir = tmp();
    const apiKey = 'k3y-1234567890abcdef';
    const walletSecret = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi2qR3Xq8w9ZfXo7M5P1yZ1';
    const redactor = createRedactor([apiKey, walletSecret]);
    const clock = manualClock(0);
    const endpoints = endpointNames({ datastream: `wss://stream.example.com/ws/${apiKey}`, base: `https://api.example.com/v1?api_key=${apiKey}` });
    expect(endpoints).toEqual({ datastream: 'stream.example.com', base: 'api.example.com' });
    const rec = createRecorder({ dir, source: 'secret', clock, clockKind: 'wall', rooms: [`latest`], endpoints, redactor, log: silentLogger() });
    const client = fakeClient();
    rec.watch(client);
    rec.onRawFrame(`{"type":"error","message":"invalid key ${apiKey}"}`, 0 as UnixMs);
    rec.onRawFrame(`{"type":"message","room":"latest","data":{"echo":"${walletSecret}"}}`, 0 as UnixMs);
    const port = rec.data({ get: () => Promise.resolve({ url: `wss://stream.example.com/ws/${apiKey}` }) });
    await port.get('/x', { key: apiKey });
    await rec.stop();
    const text = readAll(dir);
    expect(text.length).toBeGreaterThan(200);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(walletSecret);
    expect(redactor.leaks(text)).toBe(false);
    expect(text).toContain('[REDACTED]');
  });

  it('keeps manual decisions as journaled at their run-clock instant, and a reader rebuilds the same actions from them', async () => {
    const dir = tmp();
    const clock = manualClock(1_000);
    const rec = createRecorder({
      dir,
      source: 'manual',
      clock,
      clockKind: 'simulator',
      rooms: [],
      endpoints: {},
      redactor: createRedactor(),
      log: silentLogger(),
      gzip: false,
    });
    const meta = { by: 'api:ops', why: 'rug risk' };
    const actions: ManualAction[] = [
      { action: 'enter', mint: 'M1', strategyId: 's1', spendLamports: 123_456_789n },
      { action: 'close', mint: 'M1', fractionBps: 2_500 },
      { action: 'cancel', intentId: 'int_1' },
    ];
    for (const a of actions) {
      clock.advance(10);
      rec.manual(manualDecision(a, meta, clock.now()));
    }
    rec.end();
    rec.manual(manualDecision(actions[2]!, meta, clock.now()));
    await rec.stop();
    const lines = readRecording(dir).lines.filter((l) => l.kind === 'manual');
    expect(lines.map((l) => l.t)).toEqual([1_010, 1_020, 1_030]);
    expect(lines.map((l) => (l.kind === 'manual' ? manualActionOf(l.entry) : undefined))).toEqual(actions.map((action) => ({ action, meta })));
  });

  it('counts a manual line without its decision as a bad line', async () => {
    const dir = tmp();
    const rec = createRecorder({
      dir,
      source: 'bad',
      clock: manualClock(0),
      clockKind: 'wall',
      rooms: [],
      endpoints: {},
      redactor: createRedactor(),
      log: silentLogger(),
      gzip: false,
    });
    (rec as unknown as { manual(e: unknown): void }).manual({ kind: 'other' });
    await rec.stop();
    const r = readRecording(dir);
    expect(r.badLines).toBe(1);
    expect(r.firstBad).toContain('a manual line without its manual decision');
  });
});
