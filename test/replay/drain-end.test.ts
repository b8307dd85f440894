/**
 * Where a backtest of a stopped run ends: at the recording's `drained` line, not at its millisecond.
 * The run wrote the mark and stopped its engine in one synchronous step, so what the recorder wrote
 * after the mark, even in the same millisecond, never reached the run's strategies; the backtest
 * must not show them to its strategies either (it did, and logged an `ENGINE_STOPPED` denial that
 * the run never had).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment, type LoadedDeployment } from '../../src/config/index.js';
import { resolveRecordingFiles, readRecording } from '../../src/research/replay/recording-reader.js';
import { runBacktest, type BacktestResult } from '../../src/research/backtest/run-backtest.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';

const root = mkdtempSync(join(tmpdir(), 'cp-drain-end-'));
let loaded: LoadedDeployment;
/** The recording's lines (header first), as text. */
let text: string[];

beforeAll(async () => {
  loaded = loadDeployment('config/paper-sim.yaml');
  const gz = join(root, 'gz');
  await recordSimulator({ seed: 11, durationMs: 10 * 60_000, loaded, dir: gz, redactor: createRedactor() });
  const [f] = resolveRecordingFiles(gz);
  text = gunzipSync(readFileSync(f!))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length > 0);
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
const backtestOf = async (lines: readonly string[]): Promise<BacktestResult> => {
  const dir = join(root, `v${n++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'session.0000.jsonl'), lines.join('\n') + '\n');
  return runBacktest({ loaded, recording: readRecording(dir) });
};
const tOf = (line: string): number => (JSON.parse(line) as { t: number }).t;

describe('the end of a drained run in a backtest', () => {
  it('ends at the drained line: lines written after it in the same millisecond reach no strategy', async () => {
    const firstExit = (await backtestOf(text)).decisions.find((e) => e.kind === 'intent' && /^take profit|^stop loss|^trailing stop/.test(e.reason));
    expect(firstExit).toBeDefined();
    const at = firstExit!.at;
    // An exit rule decides on a price: one of the lines of that millisecond.
    const first = text.findIndex((l, i) => i > 0 && tOf(l) === at);
    let last = first;
    while (last + 1 < text.length && tOf(text[last + 1]!) === at) last++;
    expect(first).toBeGreaterThan(0);
    const stop = `{"k":"stop","t":${at}}`;
    const drained = `{"k":"drained","t":${at}}`;

    // Drained after that millisecond's lines: the strategy sees them, and its intent is refused as a stopped run refuses.
    const { decisionLog: seen } = await backtestOf([...text.slice(0, first), stop, ...text.slice(first, last + 1), drained, ...text.slice(last + 1)]);
    expect(seen).toMatch(new RegExp(`"kind":"denied","at":${at},.*"code":"ENGINE_STOPPED"`));

    // Drained before them: they were written after the engine stopped, and the backtest is the one of the recording cut at the mark.
    const after = (await backtestOf([...text.slice(0, first), stop, drained, ...text.slice(first)])).decisionLog;
    const cut = (await backtestOf([...text.slice(0, first), stop, drained])).decisionLog;
    expect(after).toBe(cut);
    expect(after).not.toContain('ENGINE_STOPPED');
  }, 120_000);
});
