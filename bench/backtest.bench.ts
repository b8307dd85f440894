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
import { createRedactor, manualClock, silentLogger, type UnixMs } from '../src/core/index.js';
import { createRecorder } from '../src/runtime/record/recorder.js';
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
      // Recorder cost per frame against JSON.parse of the same frame (a lower bound of the client's
      // ingest cost per frame, so this ratio bounds the recorder's share of ingest from above).
      const frames: string[] = [];
      for (const l of rec.lines) if (l.kind === 'frame' && l.frame !== undefined) frames.push(JSON.stringify(l.frame));
      const parseRate = await best(() => {
        const t0 = performance.now();
        for (const f of frames) JSON.parse(f);
        return frames.length / ((performance.now() - t0) / 1000);
      });
      // Recorder cost per frame, gzip included (from the first frame to the closed file), against the
      // replay's cost per line (Datastream router + engine: a lower bound of live ingest per frame).
      let part = 0;
      const recordRate = await best(async () => {
        const recorder = createRecorder({ dir: join(dir, `rec-cost-${part++}`), source: 'bench', clock: manualClock(0), clockKind: 'simulator', rooms: [], endpoints: {}, redactor: createRedactor(['bench-api-key-0123456789']), log: silentLogger() });
        const t0 = performance.now();
        for (const f of frames) recorder.onRawFrame(f, 0 as UnixMs);
        await recorder.close();
        return frames.length / ((performance.now() - t0) / 1000);
      });
      return [
        { name: 'recorder: frames recorded (gzip included)', value: recordRate, unit: 'frames/s', note: `cost = ${((replay / recordRate) * 100).toFixed(1)}% of replaying a line through router + engine; ${((parseRate / recordRate) * 100).toFixed(0)}% of a bare JSON.parse of the frame` },
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
