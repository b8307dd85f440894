/**
 * `record:` in a paper run: config/paper-sim.yaml in paper mode on the embedded simulator in real
 * time (60x, the simulator's clock drives the engine; the Datastream client still stamps frames
 * with wall time, which the recording keeps beside the run-clock time), then `backtest
 * --verify-against` its decision log finds no difference; a changed log is reported at the exact
 * line; `chainpilot report` rebuilds the same HTML from report.json.
 */
import { runRecording } from '../../src/research/record/run-recorder.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/index.js';
import { runBacktestJob } from '../../src/research/backtest/backtest-job.js';
import { rebuildReportHtml } from '../../src/research/backtest/rebuild-report.js';
import { resolveRecordingFiles } from '../../src/research/replay/recording-reader.js';
import { runPaper } from '../../src/runtime/shell/run-paper.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-paper-rec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a paper run with record: on, backtested', () => {
  it('reproduces the paper decision log byte for byte, and --verify-against names the first changed line', async () => {
    const yaml = readFileSync('config/paper-sim.yaml', 'utf8')
      .replace('./.chainpilot/paper-sim.decisions.jsonl', join(dir, 'paper.decisions.jsonl'))
      .concat(`record:\n  dir: ${join(dir, 'rec')}\n`);
    const file = join(dir, 'paper.yaml');
    writeFileSync(file, yaml);
    await runPaper({ file, recording: runRecording, durationMs: 8_000, out: () => undefined, log: silentLogger() });
    const paperLog = readFileSync(join(dir, 'paper.decisions.jsonl'), 'utf8');
    expect(paperLog.split('\n').length).toBeGreaterThan(10);
    const recText = resolveRecordingFiles(join(dir, 'rec'))
      .map((f) => gunzipSync(readFileSync(f)).toString('utf8'))
      .join('');
    expect(recText).toMatch(/"k":"end"/);

    const ok = await runBacktestJob({ file, data: join(dir, 'rec'), outDir: join(dir, 'out'), verifyAgainst: join(dir, 'paper.decisions.jsonl') });
    expect(ok.divergence).toBeUndefined();
    expect(readFileSync(ok.files.decisions, 'utf8')).toBe(paperLog);

    const lines = paperLog.split('\n');
    lines[4] = lines[4]!.replace(/"at":(\d+)/, (_m, n: string) => `"at":${Number(n) + 1}`);
    writeFileSync(join(dir, 'changed.jsonl'), lines.join('\n'));
    const bad = await runBacktestJob({ file, data: join(dir, 'rec'), outDir: join(dir, 'out2'), verifyAgainst: join(dir, 'changed.jsonl') });
    expect(bad.divergence).toEqual({ line: 5, expected: lines[4], actual: paperLog.split('\n')[4] });
    expect(bad.report.fingerprint).toBe(ok.report.fingerprint);

    expect(rebuildReportHtml(readFileSync(ok.files.report, 'utf8'), ok.files.report)).toBe(readFileSync(ok.files.html, 'utf8'));

    // The command exits 1 and prints both sides of the first difference.
    const cli = spawnSync(
      process.execPath,
      ['bin/chainpilot.js', 'backtest', file, '--data', join(dir, 'rec'), '--out', join(dir, 'out3'), '--verify-against', join(dir, 'changed.jsonl')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(cli.status).toBe(1);
    expect(cli.stdout).toContain('BACKTEST_DIVERGED');
    expect(cli.stdout).toContain(`expected: ${lines[4]!}`);
    expect(cli.stdout).toContain(`backtest: ${paperLog.split('\n')[4]!}`);
    expect(cli.stderr).toMatch(/backtest: \d+% /); // a progress line (no TTY)
  }, 90_000);
});
