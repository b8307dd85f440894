/**
 * Parity at stop: a paper run on the embedded simulator whose intents take a simulated minute to
 * fill (`paper.latency: 1m`) is stopped with intents in flight. The recording marks when the stop
 * began and when the drain ended; the backtest of it refuses new intents from the stop mark on
 * (ENGINE_STOPPED, as the run did), lets the in-flight ones fill until the drain's end, and writes
 * the run's decision log byte for byte.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { runBacktest } from '../../src/research/backtest/run-backtest.js';
import { runRecording } from '../../src/research/record/run-recorder.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import type { ShutdownReport } from '../../src/runtime/handle/deployment-handle.js';
import { until } from '../runtime/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-stop-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest parity at stop', () => {
  it('stops admitting intents at the recorded stop mark and replays the drain exactly as the paper run did', async () => {
    const yaml = readFileSync('config/paper-sim.yaml', 'utf8')
      .replace('latency: 250ms', 'latency: 1m')
      .replace('./.chainpilot/paper-sim.decisions.jsonl', join(dir, 'paper.decisions.jsonl'))
      .concat(`shutdown:\n  drain: 40s\nrecord:\n  dir: ${join(dir, 'rec')}\n`);
    const file = join(dir, 'paper.yaml');
    writeFileSync(file, yaml);
    // Stopped once intents are in flight (not after a fixed wall time: under load the run may not have decided anything by then).
    const handle = createDeployment(loadDeployment(file), { mode: 'paper', recording: runRecording, log: silentLogger() });
    await handle.start();
    let report: ShutdownReport;
    try {
      await until(() => handle.stats().pending.length >= 2, 'two intents in flight', 60_000);
    } finally {
      report = await handle.stop();
    }
    // Intents were in flight when the stop began.
    expect(report.intents.length).toBeGreaterThan(0);
    const paperLog = readFileSync(join(dir, 'paper.decisions.jsonl'), 'utf8');

    const recording = readRecording(join(dir, 'rec'));
    const stop = recording.lines.find((l) => l.kind === 'stop');
    const drained = recording.lines.find((l) => l.kind === 'drained');
    expect(stop).toBeDefined();
    expect(drained!.t).toBeGreaterThanOrEqual(stop!.t);
    // Something happened in the drain window: a fill or expiry after the stop mark.
    const afterStop = paperLog
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as { kind: string; at: number })
      .filter((e) => e.at >= stop!.t);
    expect(afterStop.some((e) => e.kind === 'fill' || e.kind === 'unfilled')).toBe(true);

    const bt = await runBacktest({ loaded: loadDeployment(file), recording });
    expect(bt.decisionLog).toBe(paperLog);
  }, 120_000);
});
