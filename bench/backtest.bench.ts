/**
 * Backtest replay speed against a bare JSON.parse of the same recording, in one run:
 * - baseline: gunzip, split into lines and JSON.parse every line (lines/s);
 * - first pass: read the recording (gunzip, parse once) and replay it through the paper session
 *   of config/paper-sim.yaml (lines/s, ratio to the baseline; goal ≥ 0.8);
 * - replay only: the same replay over the already parsed recording (what a sweep cell costs).
 * The recording is 30 simulated minutes of the embedded simulator with that deployment running.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import { createRedactor } from '../src/core/index.js';
import { loadDeployment } from '../src/config/index.js';
import { readRecording, resolveRecordingFiles } from '../src/replay/recording-reader.js';
import { runBacktest } from '../src/runtime/backtest/run-backtest.js';
import { recordSimulator } from '../src/runtime/record/record-sim.js';
import type { Bench } from './harness.js';

const bench: Bench = {
  name: 'backtest',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'cp-bench-bt-'));
    try {
      const loaded = loadDeployment('config/paper-sim.yaml');
      await recordSimulator({ seed: 42, durationMs: 30 * 60_000, loaded, dir, redactor: createRedactor() });
      const files = resolveRecordingFiles(dir);
      const best = async (fn: () => Promise<number> | number): Promise<number> => {
        let b = 0;
        for (let i = 0; i < 3; i++) b = Math.max(b, await fn());
        return b;
      };
      let lines = 0;
      const baseline = await best(() => {
        const t0 = performance.now();
        let n = 0;
        for (const f of files) {
          const text = gunzipSync(readFileSync(f)).toString('utf8');
          let s = 0;
          for (;;) {
            const e = text.indexOf('\n', s);
            if (e < 0) break;
            JSON.parse(text.slice(s, e));
            n++;
            s = e + 1;
          }
        }
        lines = n;
        return n / ((performance.now() - t0) / 1000);
      });
      const firstPass = await best(async () => {
        const t0 = performance.now();
        const rec = readRecording(dir);
        await runBacktest({ loaded, recording: rec });
        return lines / ((performance.now() - t0) / 1000);
      });
      const rec = readRecording(dir);
      const replay = await best(async () => {
        const t0 = performance.now();
        await runBacktest({ loaded, recording: rec });
        return rec.lines.length / ((performance.now() - t0) / 1000);
      });
      return [
        { name: `JSON.parse of the recording (${lines} lines)`, value: baseline, unit: 'lines/s' },
        { name: 'first pass: read + replay through the engine', value: firstPass, unit: 'lines/s', ratio: firstPass / baseline, note: 'goal >= 0.8' },
        { name: 'replay of the parsed recording', value: replay, unit: 'lines/s', ratio: replay / baseline },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
