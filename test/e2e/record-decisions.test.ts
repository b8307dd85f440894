/**
 * `chainpilot record DEPLOYMENT` runs the deployment's strategies in a paper session (here on the
 * embedded simulator at 60x) and writes their decision log beside the recording, so that the
 * backtest of the recording can be verified against it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/index.js';
import { runBacktestJob } from '../../src/research/backtest/backtest-job.js';
import { recordLive } from '../../src/research/record/record-live.js';
import { resolveRecordingFiles } from '../../src/research/replay/recording-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-record-decisions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('record DEPLOYMENT', () => {
  it('writes the decision log of the strategies it runs beside the recording, and the backtest of the recording verifies against it', async () => {
    const r = await recordLive({ file: 'config/paper-sim.yaml', dir, durationMs: 6_000, out: () => undefined, log: silentLogger() });
    expect(r.decisions).toBeDefined();
    expect(existsSync(r.decisions!)).toBe(true);
    const log = readFileSync(r.decisions!, 'utf8');
    expect(log).toMatch(/"kind":"intent"/);
    // The decision log is not taken for a recording file.
    expect(resolveRecordingFiles(dir)).toEqual([...r.files].sort());
    const bt = await runBacktestJob({ file: 'config/paper-sim.yaml', data: dir, outDir: join(dir, 'out'), verifyAgainst: r.decisions!, cache: false });
    expect(bt.divergence).toBeUndefined();
  }, 90_000);
});
