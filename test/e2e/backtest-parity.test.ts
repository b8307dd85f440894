/**
 * Parity: a paper session of config/paper-sim.yaml on the embedded simulator (its manual clock,
 * a real WebSocket, the Datastream client's receive times on the same clock) with recording on,
 * then a backtest of that recording with the same deployment, writes the same decision log byte
 * for byte, from the recording files and from their prepared cache alike.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment, parseDeployment } from '../../src/config/index.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { readRecordingPrepared } from '../../src/research/replay/prepared-cache.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';
import { PREPARED_FORMAT } from '../../src/research/replay/prepared-recording.js';
import { openRecordingStream } from '../../src/research/replay/recording-stream.js';
import { runBacktest } from '../../src/research/backtest/run-backtest.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest parity with a recorded paper session', () => {
  it('reproduces the paper session decision log byte for byte from its recording', async () => {
    const loaded = loadDeployment('config/paper-sim.yaml');
    const paper = memoryDecisionLog();
    const redactor = createRedactor();
    const rec = await recordSimulator({ seed: 7, durationMs: 30 * 60_000, loaded, dir, redactor, decisions: paper.sink });
    // The simulator's API key (registered in the redactor) is in no line of the recording.
    const text = gunzipSync(readFileSync(rec.files[0]!)).toString('utf8');
    expect(redactor.redact('probe')).toBe('probe');
    expect(redactor.leaks(text)).toBe(false);
    expect(rec.files.length).toBe(1);
    const paperLog = paper.lines.join('');
    // The strategies' decision log is written beside the recording.
    expect(readFileSync(rec.decisions!, 'utf8')).toBe(paperLog);
    expect(paper.lines.filter((l) => l.includes('"kind":"fill"')).length).toBeGreaterThan(3);

    const bt = await runBacktest({ loaded, recording: readRecording(dir) });
    expect(bt.decisionLog).toBe(paperLog);
    expect(bt.data.misses).toBe(0);

    // recording format 1 streamed from the file (the client's path), nothing held
    const streamed = await runBacktest({ loaded, recording: await openRecordingStream(dir) });
    expect(streamed.decisionLog).toBe(paperLog);

    // prepared format 4 (PREPARED_FORMAT), from its cache file
    expect(PREPARED_FORMAT).toBe(4);
    expect(readRecordingPrepared(dir, { version: 'parity' }).cache.status).toBe('built');
    const cached = readRecordingPrepared(dir, { version: 'parity' });
    expect(cached.cache.status).toBe('hit');
    const fromCache = await runBacktest({ loaded, recording: cached.recording });
    expect(fromCache.decisionLog).toBe(paperLog);
  }, 120_000);

  it('forgets idle tokens at the same events in paper and backtest (engine.marketRetention: 1m over 20 simulated minutes)', async () => {
    const text = `${readFileSync('config/paper-sim.yaml', 'utf8')}\nengine:\n  marketRetention: 1m\n`;
    const loaded = parseDeployment(text, 'config/paper-sim.yaml');
    expect(loaded.deployment.engine.marketRetention).toBe(60_000);
    const paper = memoryDecisionLog();
    const recDir = join(dir, 'retention');
    await recordSimulator({ seed: 11, durationMs: 20 * 60_000, loaded, dir: recDir, redactor: createRedactor(), decisions: paper.sink });
    const paperLog = paper.lines.join('');
    expect(paper.lines.filter((l) => l.includes('"kind":"fill"')).length).toBeGreaterThan(3);
    const bt = await runBacktest({ loaded, recording: readRecording(recDir) });
    expect(bt.decisionLog).toBe(paperLog);
  }, 120_000);

  it('records the same simulator run byte for byte twice (seed, start and duration fixed)', async () => {
    const a = await recordSimulator({
      seed: 3,
      durationMs: 5 * 60_000,
      rooms: ['latest', 'graduated', 'venue_a:curve:50'],
      dir: join(dir, 'a'),
      redactor: createRedactor(),
    });
    const b = await recordSimulator({
      seed: 3,
      durationMs: 5 * 60_000,
      rooms: ['latest', 'graduated', 'venue_a:curve:50'],
      dir: join(dir, 'b'),
      redactor: createRedactor(),
    });
    expect(a.lines).toBeGreaterThan(20);
    expect(readFileSync(a.files[0]!).equals(readFileSync(b.files[0]!))).toBe(true);
  }, 60_000);
});
