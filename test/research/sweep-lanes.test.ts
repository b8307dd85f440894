/**
 * A sweep's lanes: worker threads open the recording the main thread loaded from shared memory
 * alone (no recording file, no cache file), every lane (this thread included) runs cells of a round,
 * the workers stay for every round, and the results are those of running every cell in this thread.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { loadRecording } from '../../src/research/backtest/backtest-job.js';
import type { CellJob, CellResult, CellTask } from '../../src/research/backtest/sweep-cell.js';
import { gridCells, parseSetOption } from '../../src/research/backtest/sweep-grid.js';
import { inlineRunner, lanePool } from '../../src/research/backtest/sweep-pool.js';
import { openSharedRecording, shareRecording } from '../../src/research/backtest/sweep-shared.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-sweep-lanes-'));
const file = 'config/paper-sim.yaml';
const rec = join(dir, 'rec');
beforeAll(async () => {
  await recordSimulator({ seed: 5, durationMs: 10 * 60_000, loaded: loadDeployment(file), dir: rec, redactor: createRedactor() });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const job: CellJob = { file, fileText: readFileSync(file, 'utf8'), sampleMs: 60_000 };
const tasksOf = (values: string): CellTask[] =>
  gridCells([parseSetOption(`strategies[curve-momentum].params.minHolders=${values}`), parseSetOption('risk.maxOpenPositions=2,6')]).map((cell) => ({
    cell,
    windows: [{ name: 'all' }],
  }));

/** A copy of the recording in a fresh directory (its own prepared cache). */
function copyOfRecording(name: string): string {
  const to = join(dir, name);
  cpSync(rec, to, { recursive: true });
  return to;
}

describe('sweep lanes', () => {
  it('a worker opens the recording from the shared bytes alone: the same recording with the files and the cache deleted', () => {
    const at = copyOfRecording('shared');
    const built = loadRecording([at]);
    expect(built.cache.status).toBe('built');
    const fromCache = { loaded: built, shared: shareRecording(built) };
    // --no-cache: the prepared form built in memory, nothing written
    const off = loadRecording([at], false);
    const fromMemory = { loaded: off, shared: shareRecording(off) };
    rmSync(at, { recursive: true, force: true });
    for (const { loaded, shared } of [fromCache, fromMemory]) {
      expect(shared.bytes).toBeInstanceOf(SharedArrayBuffer);
      const opened = openSharedRecording(shared);
      expect(opened.files).toEqual(built.recording.files);
      expect(opened.badLines).toBe(built.recording.badLines);
      expect(opened.lineCount).toBe(built.recording.lineCount);
      expect(opened.span).toEqual(built.recording.span);
      expect([...opened.recordedRooms].sort()).toEqual([...built.recording.recordedRooms].sort());
      expect(Buffer.compare(Buffer.from(opened.bytes), Buffer.from(loaded.recording.bytes))).toBe(0);
    }
  });

  it('shares a recording loaded into shared memory without a copy, and refuses bytes of another recording', () => {
    const at = copyOfRecording('replaced');
    const loaded = loadRecording([at], true, undefined, { shared: true });
    expect(loaded.recording.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    const shared = shareRecording(loaded);
    expect(shared.bytes).toBe(loaded.recording.bytes.buffer);
    // the worker's columns are views over the same memory, not copies
    expect(openSharedRecording(shared).bytes.buffer).toBe(shared.bytes);
    expect(() => openSharedRecording({ ...shared, key: 'another recording' })).toThrow(
      expect.objectContaining({ code: 'BACKTEST_RECORDING_MISMATCH', message: expect.stringContaining('another recording') }),
    );
    expect(() => openSharedRecording({ ...shared, bytes: new SharedArrayBuffer(64) })).toThrow(
      expect.objectContaining({ code: 'BACKTEST_RECORDING_MISMATCH', message: expect.stringContaining('cannot be opened') }),
    );
  });

  it('every lane, this thread included, runs cells; the workers stay for every round; results equal this thread alone', async () => {
    const at = copyOfRecording('lanes');
    const loaded = loadRecording([at]);
    const shared = shareRecording(loaded);
    const rounds = [tasksOf('5,10,20,30,40'), tasksOf('15,25')];
    const alone: CellResult[][] = [];
    const inline = inlineRunner(job, loaded.recording, () => undefined);
    for (const tasks of rounds) alone.push([...(await inline.run(tasks))]);

    const seen: number[] = [];
    const pool = lanePool(2, job, (r) => seen.push(r.index));
    // The workers get nothing but the shared bytes: the recording is gone from disk before they open it.
    rmSync(at, { recursive: true, force: true });
    pool.share(loaded.recording, shared);
    try {
      await pool.ready();
      const first = await pool.run(rounds[0]!);
      const afterFirst = pool.cellsByLane();
      const second = await pool.run(rounds[1]!);
      expect(first).toEqual(alone[0]);
      expect(second).toEqual(alone[1]);
      expect(afterFirst).toHaveLength(3);
      // 10 cells of the first round over three lanes: each took at least one
      for (const n of afterFirst) expect(n).toBeGreaterThan(0);
      expect(pool.cellsByLane().reduce((a, n) => a + n, 0)).toBe(14);
      expect([...seen].sort((a, b) => a - b)).toEqual([...rounds[0]!, ...rounds[1]!].map((t) => t.cell.index).sort((a, b) => a - b));
    } finally {
      await pool.close();
    }
  }, 120_000);
});
