/**
 * Manual decisions are part of the recording: a paper run of config/paper-sim.yaml on the embedded
 * simulator (60x, `record:` on) where an operator forces an entry and then closes it through the
 * deployment handle mid-run; the recording keeps both `manual` lines at their run-clock instants,
 * and a backtest of it applies the same actions through its engine and writes the run's decision
 * log byte for byte (from the files and from the prepared cache).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import { memoryDecisionLog, type DecisionEntry } from '../../src/engine/decision-log.js';
import { runBacktest } from '../../src/research/backtest/run-backtest.js';
import { runRecording } from '../../src/research/record/run-recorder.js';
import { readRecordingPrepared } from '../../src/research/replay/prepared-cache.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';
import { createDeployment } from '../../src/runtime/create-deployment.js';
import { until } from '../runtime/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-manual-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest parity with manual actions', () => {
  it('replays a forced entry and a manual close taken through the handle, writing the paper decision log byte for byte', async () => {
    const yaml = readFileSync('config/paper-sim.yaml', 'utf8')
      .replace('./.chainpilot/paper-sim.decisions.jsonl', join(dir, 'paper.decisions.jsonl'))
      .concat(`record:\n  dir: ${join(dir, 'rec')}\n`);
    const file = join(dir, 'paper.yaml');
    writeFileSync(file, yaml);
    const loaded = loadDeployment(file);
    const paper = memoryDecisionLog();
    const entries: DecisionEntry[] = [];
    const handle = createDeployment(loaded, {
      mode: 'paper',
      recording: runRecording,
      decisions: (e) => {
        entries.push(e);
        paper.sink(e);
      },
    });
    await handle.start();
    let enteredId: string | undefined;
    let closedId: string | undefined;
    try {
      // A token one strategy bought: the operator forces the other one into it, then closes that position.
      await until(() => entries.some((e) => e.kind === 'fill' && e.side === 'buy'), 'a first buy fill', 60_000);
      const first = entries.find((e) => e.kind === 'fill' && e.side === 'buy') as Extract<DecisionEntry, { kind: 'fill' }>;
      const other = first.strategyId === 'curve-momentum' ? 'graduation-sniper' : 'curve-momentum';
      // After the risk gate's per-token cooldown (5 simulated minutes) since that buy.
      await until(() => handle.clock()!.now() > first.at + 300_000, 'the cooldown to pass', 30_000);
      const enter = handle.manual!(
        { action: 'enter', mint: first.mint, strategyId: other, spendLamports: 50_000_000n },
        { by: 'e2e operator', why: 'forced entry' },
      );
      expect(enter).toMatchObject({ ok: true });
      enteredId = enter.ok ? enter.intentId : undefined;
      await until(() => entries.some((e) => e.kind === 'fill' && e.intentId === enteredId), 'the forced entry to fill', 30_000);
      const close = handle.manual!({ action: 'close', mint: first.mint, strategyId: other, fractionBps: 10_000 }, { by: 'e2e operator', why: 'take it off' });
      expect(close).toMatchObject({ ok: true });
      closedId = close.ok ? close.intentId : undefined;
      await until(() => entries.some((e) => e.kind === 'fill' && e.intentId === closedId), 'the manual close to fill', 30_000);
      // Some more of the run after the actions.
      const at = handle.clock()!.now();
      await until(() => handle.clock()!.now() >= at + 60_000, 'a simulated minute more', 30_000);
    } finally {
      await handle.stop();
    }
    const paperLog = paper.lines.join('');
    expect(readFileSync(join(dir, 'paper.decisions.jsonl'), 'utf8')).toBe(paperLog);
    const manualLines = paper.lines.filter((l) => l.includes('"kind":"manual"'));
    expect(manualLines).toHaveLength(2);

    const recording = readRecording(join(dir, 'rec'));
    expect(recording.badLines).toBe(0);
    const recorded = recording.lines.filter((l) => l.kind === 'manual');
    expect(recorded.map((l) => (l.kind === 'manual' ? JSON.stringify(l.entry) + '\n' : ''))).toEqual(manualLines);
    expect(recorded.map((l) => l.t)).toEqual(manualLines.map((l) => (JSON.parse(l) as { at: number }).at));

    const bt = await runBacktest({ loaded, recording });
    expect(bt.decisionLog).toBe(paperLog);
    // The forced entry and the close were replayed as intents with the same ids, and filled.
    for (const id of [enteredId, closedId]) expect(bt.decisions.some((e) => e.kind === 'fill' && e.intentId === id)).toBe(true);

    readRecordingPrepared(join(dir, 'rec'), { version: 'manual-parity' });
    const cached = readRecordingPrepared(join(dir, 'rec'), { version: 'manual-parity' });
    expect(cached.cache.status).toBe('hit');
    expect((await runBacktest({ loaded, recording: cached.recording })).decisionLog).toBe(paperLog);
  }, 120_000);
});
