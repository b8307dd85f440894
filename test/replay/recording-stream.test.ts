/**
 * The streamed recording's first pass finds lines by their bytes (frames are counted, never decoded):
 * what it finds (start, end and drain marks by line index, the last good line's time, the count of
 * lines, every `ctx.data` answer) must be what reading each line as text finds, on files that make
 * the byte walk work hard: lines cut across the 256 KiB decompression chunks, empty lines, lines
 * that are not records (short ones, non-ASCII ones), a torn last line, a file without a trailing
 * newline, an uncompressed part, and a part that holds only its header.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openRecordingStream } from '../../src/research/replay/recording-stream.js';
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
  });
});
