/**
 * Parity: a paper session of config/paper-sim.yaml on the embedded simulator (its manual clock,
 * a real WebSocket, the Datastream client's receive times on the same clock) with recording on,
 * then a backtest of that recording with the same deployment, writes the same decision log byte
 * for byte.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { memoryDecisionLog } from '../../src/engine/decision-log.js';
import { readRecording } from '../../src/replay/recording-reader.js';
import { runBacktest } from '../../src/runtime/backtest/run-backtest.js';
import { recordSimulator } from '../../src/runtime/record/record-sim.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest parity with a recorded paper session', () => {
  it('reproduces the paper session decision log byte for byte from its recording', async () => {
    const loaded = loadDeployment('config/paper-sim.yaml');
    const paper = memoryDecisionLog();
    const rec = await recordSimulator({ seed: 7, durationMs: 30 * 60_000, loaded, dir, redactor: createRedactor(), decisions: paper.sink });
    expect(rec.files.length).toBe(1);
    const paperLog = paper.lines.join('');
    expect(paper.lines.filter((l) => l.includes('"kind":"fill"')).length).toBeGreaterThan(3);

    const bt = await runBacktest({ loaded, recording: readRecording(dir) });
    expect(bt.decisionLog).toBe(paperLog);
  }, 120_000);
});
