/**
 * The prepared form (format 4) hands the engine exactly what the client's path does: a recording of
 * the simulator with swaps and prices (the kit probe's rooms), with lines added for every case the
 * fast forms must get right or leave to the client (a USD-only price before any SOL/USD rate, a
 * duplicated swap frame, a frame whose rows are half new, a frame the guard rejects, an unknown
 * room, a text frame, a frame that is not a message, an aggregated price), replayed streamed from
 * the file (client guard, router, normaliser) and from its prepared form: a strategy that writes
 * down every event it gets sees the same events in the same order, and the feed counts, the
 * engine's counts and the decision log agree.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { parseDeployment, type LoadedDeployment } from '../../src/config/index.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { defineStrategy, z } from '../../src/strategies/api.js';
import { resolveStrategies } from '../../src/runtime/compose/resolve-strategies.js';
import { runBacktest, type BacktestResult } from '../../src/research/backtest/run-backtest.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';
import { openPrepared } from '../../src/research/replay/prepared-recording.js';
import { prepareRecording } from '../../src/research/replay/prepared-cache.js';
import { openRecordingStream } from '../../src/research/replay/recording-stream.js';
import { readRecording, resolveRecordingFiles } from '../../src/research/replay/recording-reader.js';

const DEPLOYMENT = `version: 1
name: prepared-replay
endpoints:
  simulator: { seed: 5, speed: 60 }
strategies:
  - use: ./kit-probe.ts
risk:
  maxTradeSol: "0.5"
  maxOpenPositions: 4
  maxExposureSol: "2"
paper:
  startingBalanceSol: "10"
  latency: 250ms
telemetry:
  logLevel: silent
`;

const root = mkdtempSync(join(tmpdir(), 'cp-prepared-replay-'));
const dir = join(root, 'edited');
let loaded: LoadedDeployment;
let rooms: string[];
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Frame {
  type: string;
  room: string;
  data: unknown;
}

beforeAll(async () => {
  loaded = parseDeployment(DEPLOYMENT, 'test/e2e/fixtures/kit/kit-parity.yaml');
  await recordSimulator({ seed: 5, durationMs: 6 * 60_000, loaded, dir: join(root, 'rec'), redactor: createRedactor() });
  const [file] = resolveRecordingFiles(join(root, 'rec'));
  const lines = gunzipSync(readFileSync(file!)).toString('utf8').trimEnd().split('\n');
  const frameAt = (i: number): { t: number; f: Frame } => JSON.parse(lines[i]!) as { t: number; f: Frame };
  const startAt = lines.findIndex((l) => l.startsWith('{"k":"start"'));
  const t0 = frameAt(startAt).t;
  const swaps = lines.flatMap((l, i) => (l.includes('"room":"transaction:') ? [i] : []));
  expect(swaps.length).toBeGreaterThan(10);
  const price = lines.findIndex((l) => l.includes('"room":"price:token:'));
  const out = [...lines];
  const insert = (at: number, ...added: string[]): void => void out.splice(at, 0, ...added);
  // from the end backwards, so earlier positions stay put
  const late = swaps[swaps.length - 2]!;
  expect(lines.findIndex((l) => l.includes('"room":"latest"'))).toBeLessThan(late);
  const { t, f } = frameAt(late);
  const row = (f.data as Record<string, unknown>[])[0]!;
  const fresh = { ...row, tx: `${String(row['tx'])}x` };
  const mint = f.room.split(':')[1]!;
  const pf = frameAt(price).f;
  insert(
    late + 1,
    lines[late]!, // the same swap frame again: deduplicated
    JSON.stringify({ t, f: { ...f, data: [row, fresh] } }), // one row seen, one new
    JSON.stringify({ t, f: { type: 'message', room: `transaction:${mint}:${String(row['pool'])}`, data: [fresh] } }), // overlapping room, seen row
    JSON.stringify({ t, f: { type: 'message', room: pf.room, data: { price: 'not a number' } } }), // the guard rejects it
    JSON.stringify({ t, f: { type: 'message', room: 'mystery:room', data: { a: 1 } } }), // unknown family
    JSON.stringify({ t, x: 'not json' }), // a text frame
    JSON.stringify({ t, f: { type: 'joined', room: 'latest' } }), // not a message
    JSON.stringify({ t, f: { type: 'message', room: `price:aggregated:${mint}`, data: { token: mint, timestamp: t, price: 0.002 } } }), // USD only
    JSON.stringify({ t, f: { type: 'message', room: `price:aggregated:${mint}`, data: { token: mint, timestamp: t, price: 0.002, price_quote: 1.5e-5 } } }),
    // USD only again: priced at the rate learnt from price:token ticks (an aggregated tick teaches none)
    JSON.stringify({ t, f: { type: 'message', room: `price:aggregated:${mint}`, data: { token: mint, timestamp: t, price: 0.003 } } }),
  );
  // a launch frame twice: the second is a duplicate
  const launch = lines.findIndex((l) => l.includes('"room":"latest"'));
  insert(launch + 1, lines[launch]!);
  // a USD-only price before the recording's first SOL/USD rate: a bad frame
  insert(startAt + 1, JSON.stringify({ t: t0, f: { type: 'message', room: `price:token:${mint}`, data: { price: 0.001, token: mint } } }));
  mkdirSync(dir);
  writeFileSync(join(dir, 'edited.0000.jsonl'), `${out.join('\n')}\n`);
  rooms = [...new Set(out.flatMap((l) => (l.startsWith('{"t"') ? [(JSON.parse(l) as { f?: { room?: unknown } }).f?.room] : [])))].filter(
    (r): r is string => typeof r === 'string',
  );
  rooms.sort();
}, 120_000);

/** Runs the deployment and a strategy that writes down every event of every room in the recording. */
async function tapped(recording: Parameters<typeof runBacktest>[0]['recording']): Promise<{ events: string[]; result: BacktestResult }> {
  const events: string[] = [];
  const note = (e: unknown): void => void events.push(JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)));
  const tap = defineStrategy<Record<string, never>, null>({
    id: 'tap',
    description: 'writes down every event',
    params: z.strictObject({}),
    rooms: () => rooms,
    initialState: () => null,
    onPrice: note,
    onSafety: note,
    onCurve: note,
    onGraduated: note,
    onGraduating: note,
    onLaunch: note,
    onTrade: note,
    onLiquidity: note,
    onStats: note,
  });
  const strategies = [...(await resolveStrategies(loaded)), instantiateStrategy(tap, {})];
  const result = await runBacktest({ loaded, recording, strategies });
  expect(result.summary.strategyErrors).toBe(0);
  return { events, result };
}

describe('prepared replay', () => {
  it('hands the engine the same events as the client path, for every kind of frame', async () => {
    const streamed = await tapped(await openRecordingStream(dir));
    const prepared = await tapped(prepareRecording(dir));
    const s = streamed.result;
    const p = prepared.result;
    // the edited recording reaches each case
    expect(s.summary.badFrames).toBeGreaterThanOrEqual(2); // the USD-only prices before a rate
    expect(s.feed.duplicates).toBeGreaterThanOrEqual(3);
    expect(s.feed.invalidPayloads).toBeGreaterThanOrEqual(1);
    expect(s.feed.parseFailures).toBeGreaterThanOrEqual(1);
    expect(streamed.events.some((e) => e.includes('"type":"trade"'))).toBe(true);
    expect(streamed.events.some((e) => e.includes('"aggregated":true'))).toBe(true);

    expect(prepared.events.length).toBe(streamed.events.length);
    expect(prepared.events).toEqual(streamed.events);
    expect(p.feed).toEqual(s.feed);
    expect(p.summary).toEqual(s.summary);
    expect(p.lines).toBe(s.lines);
    expect(p.decisionLog).toBe(s.decisionLog);
    expect(p.recording.recordedRooms).toEqual(s.recording.recordedRooms);
  }, 120_000);

  it('opens the same bytes in a SharedArrayBuffer without copying them, and replays them the same', async () => {
    const r = prepareRecording(dir, true);
    expect(r.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    const again = openPrepared(new Uint8Array(r.bytes.buffer));
    expect(again.columns.t.buffer).toBe(r.bytes.buffer);
    expect(again.lineCount).toBe(readRecording(dir).lines.length);
    const a = await tapped(again);
    const b = await tapped(await openRecordingStream(dir));
    expect(a.events).toEqual(b.events);
    expect(a.result.decisionLog).toBe(b.result.decisionLog);
  }, 120_000);

  it('refuses bytes that are not a prepared recording of this format, naming why', () => {
    const r = prepareRecording(dir);
    const other = new Uint8Array(r.bytes);
    other[8] = 3; // format 3
    expect(() => openPrepared(other)).toThrow(expect.objectContaining({ code: 'RECORDING_CACHE_CORRUPT', message: expect.stringContaining('cache format 3') }));
    expect(() => openPrepared(r.bytes.subarray(0, r.bytes.length - 8))).toThrow(/truncated/);
  });
});
