/**
 * The handle's lifecycle on the real simulator: fatal errors halt and end the run with status 1,
 * a start error is coded and leaves nothing running, the drain reports every intent in flight,
 * and the status display redraws in place on a TTY.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import { ChainpilotError, silentLogger } from '../../src/core/index.js';
import type { ExecutionSink, Executor } from '../../src/engine/orders/execution-port.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import { runPaper } from '../../src/runtime/shell/run-paper.js';
import { runShell } from '../../src/runtime/shell/run-shell.js';
import { createRedraw, createStatusPanel } from '../../src/runtime/shell/status-panel.js';
import { paperSimYaml, tempDir, until, type TempDir } from './helpers.js';

let tmp: TempDir | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

/** An executor whose journal is corrupt: every submit fails with JOURNAL_CORRUPT. */
function corruptJournalExecutor(): Executor & { submits: number } {
  const e = {
    submits: 0,
    start: (_sink: ExecutionSink) => Promise.resolve(),
    submit() {
      e.submits++;
      return Promise.reject(new ChainpilotError('JOURNAL_CORRUPT', 'row 7 of the journal could not be decoded', { retry: 'fatal' }));
    },
    stop: () => Promise.resolve(),
  };
  return e;
}

describe('the deployment handle', () => {
  it('halts on a fatal journal error, denies every later order, and the run ends with status 1 after the drain', async () => {
    tmp = tempDir('cp-life-');
    const file = tmp.write('paper.yaml', paperSimYaml());
    const executor = corruptJournalExecutor();
    const printed: string[] = [];
    const r = await runShell(
      { file, durationMs: 30_000, out: (t) => printed.push(t), log: silentLogger(), signals: false },
      { mode: 'paper', speed: 'max', seed: 5, executor },
      () => 'fatal test',
    );
    expect(r.exitCode).toBe(1);
    expect(r.problem).toMatch(/^JOURNAL_CORRUPT: row 7/);
    expect(r.report.fatal?.code).toBe('JOURNAL_CORRUPT');
    expect(executor.submits).toBe(1);
    expect(r.handle.health().cause?.code).toBe('JOURNAL_CORRUPT');
    expect(printed.join('')).toContain('JOURNAL_CORRUPT: row 7');
  }, 40_000);

  it('says RUNTIME_HANDLE_STATE when started twice, and a stop before start reports an empty run', async () => {
    tmp = tempDir('cp-life-');
    const file = tmp.write('paper.yaml', paperSimYaml());
    const idle = createDeployment(loadDeployment(file), { mode: 'paper', speed: 'max' });
    const report = await idle.stop();
    expect(report.intents).toEqual([]);
    expect(idle.health().state).toBe('stopped');
    await expect(idle.start()).rejects.toMatchObject({ code: 'RUNTIME_HANDLE_STATE' });
  });

  it('fails start with a coded error naming the field when the decision log is unwritable, and closes the simulator it started', async () => {
    tmp = tempDir('cp-life-');
    const file = tmp.write('paper.yaml', paperSimYaml('  decisionLog: /proc/cannot/write/here.jsonl\n'));
    const handle = createDeployment(loadDeployment(file), { mode: 'paper', speed: 'max' });
    const states: string[] = [];
    handle.events.on((e) => void (e.type === 'state' && states.push(e.state)));
    await expect(handle.start()).rejects.toMatchObject({ code: 'RUNTIME_START_FAILED', message: expect.stringContaining('telemetry.decisionLog') });
    expect(states).toEqual(['starting', 'failed']);
    expect((await handle.done()).fatal?.code).toBe('RUNTIME_START_FAILED');
    await expect(runPaper({ file, durationMs: 5_000, out: () => undefined, log: silentLogger(), signals: false })).rejects.toMatchObject({
      code: 'RUNTIME_START_FAILED',
    });
  });

  it('refuses to start a deployment that sets record: when the run was composed without a recorder, naming the field and leaving no files', async () => {
    tmp = tempDir('cp-life-');
    const dir = join(tmp.dir, 'rec');
    const file = tmp.write('paper.yaml', paperSimYaml(`record:\n  dir: ${dir}\n`));
    const handle = createDeployment(loadDeployment(file), { mode: 'paper', speed: 'max' });
    await expect(handle.start()).rejects.toMatchObject({ code: 'RUNTIME_START_FAILED', message: expect.stringContaining('record:') });
    expect(existsSync(dir)).toBe(false);
  });

  it('shows pending intents on the status screen, and drains at stop: every intent in flight is reported with the outcome it reached', async () => {
    tmp = tempDir('cp-life-');
    const file = tmp.write('paper.yaml', paperSimYaml().replace('latency: 250ms', 'latency: 20s'));
    const handle = createDeployment(loadDeployment(file), { mode: 'paper', speed: 60, seed: 5 });
    const states: string[] = [];
    handle.events.on((e) => void (e.type === 'state' && states.push(e.state)));
    await handle.start();
    await until(() => handle.stats().pending.length > 0, 'an intent in flight', 25_000);
    const inFlight = handle.stats().pending.map((p) => p.intent.id);
    const screen = createStatusPanel(handle, () => handle.clock()?.now() ?? 0).screen();
    expect(screen).toMatch(/^paper-sim \[paper\] running/);
    expect(screen).toMatch(/equity [\d.]+ SOL {2}realised [+-][\d.]+ {2}unrealised [+-][\d.]+/);
    expect(screen).toMatch(/feed open \d+ frames\/s last [\d.]+s rejected 0 dropped 0 gaps 0/);
    expect(screen).toMatch(new RegExp(`pending intents ${inFlight.length}\\n {2}(buy|sell) `));
    expect(screen).toContain('open positions');
    expect(screen).toMatch(/\ndenials /);
    const report = await handle.stop();
    expect(states).toContain('stopping');
    expect(report.drainedWithinDeadline).toBe(true);
    expect(report.intents.map((i) => i.intentId)).toEqual(expect.arrayContaining(inFlight));
    for (const i of report.intents) expect(['landed', 'failed', 'rejected', 'expired']).toContain(i.outcome);
    expect(handle.stats().pending).toEqual([]);
  }, 40_000);

  it('denies buys with RUNTIME_ENTRIES_PAUSED while entries are paused, and buys again after resume', async () => {
    tmp = tempDir('cp-life-');
    const file = tmp.write(
      'probe.yaml',
      [
        'version: 1',
        'name: probe',
        'endpoints:',
        '  simulator:',
        '    seed: 3',
        '    speed: max',
        'strategies:',
        `  - use: ${process.cwd()}/test/runtime/fixtures/probe-strategy.ts`,
        '    params: { everyMs: 10000 }',
        'telemetry:',
        '  logLevel: silent',
        '',
      ].join('\n'),
    );
    const log = memoryDecisionLog();
    const handle = createDeployment(loadDeployment(file), { mode: 'paper', decisions: log.sink });
    const kinds = (): { kind: string; code?: string; at: number }[] => log.lines.map((l) => JSON.parse(l) as { kind: string; code?: string; at: number });
    await handle.start();
    try {
      await until(() => kinds().some((e) => e.kind === 'intent'), 'a first buy');
      handle.pause('maintenance');
      expect(handle.health().state).toBe('paused');
      await until(() => kinds().some((e) => e.kind === 'denied' && e.code === 'RUNTIME_ENTRIES_PAUSED'), 'a paused denial');
      const pausedAt = kinds().find((e) => e.code === 'RUNTIME_ENTRIES_PAUSED')!.at;
      handle.resume();
      await until(() => kinds().some((e) => e.kind === 'intent' && e.at > pausedAt), 'a buy after resume');
      expect(handle.stats().denialsByCode['RUNTIME_ENTRIES_PAUSED']).toBeGreaterThan(0);
    } finally {
      await handle.stop();
    }
  }, 40_000);

  it('redraws the status screen in place on a TTY instead of reprinting it', () => {
    const written: string[] = [];
    const redraw = createRedraw((t) => written.push(t));
    redraw.draw('a\nb\nc');
    redraw.draw('d\ne\nf');
    expect(written[0]).toBe('\x1b[Ja\nb\nc\n');
    expect(written[1]).toBe('\x1b[3F\x1b[Jd\ne\nf\n');
  });
});
