/**
 * Backtest replay speed against a bare JSON.parse of the same recording, in one run:
 * - baseline: gunzip, split into lines and JSON.parse every line (lines/s);
 * - first pass: read the recording (gunzip, parse once, no cache) and replay it through the paper
 *   session of config/paper-sim.yaml (lines/s, ratio to the baseline; goal >= 0.8);
 * - replay only: the same replay over the already parsed recording (what a sweep cell costs);
 * - prepared cache: building it (first use), loading it (a later run), and a later run of the same
 *   deployment from it;
 * - a simple strategy from the cache: one that joins every recorded room and counts the events it
 *   gets (no orders), events/s per core (goal >= 1M/s), load included and replay only.
 * Rates are per CPU second of this process (user + system time, best of several runs), so other work
 * on a shared machine skews them far less than wall time would; "per core" goals read them as is.
 * Each row's note names what dominates it: the top self-time functions of a CPU profile of that
 * step (node:inspector), taken after the timed runs.
 * The recording is 6 simulated hours of the embedded simulator with that deployment running (about
 * 30,000 lines and 4,000 rooms: long enough that a run's fixed costs do not decide its rate).
 * First pass is also measured with the simple strategy: what reading and the engine cost without the
 * deployment's own work (its fills, exits and decision log).
 */
import { Session, type Profiler } from 'node:inspector';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createRedactor, manualClock, silentLogger, type UnixMs } from '../src/core/index.js';
import { createRecorder } from '../src/research/record/recorder.js';
import { loadDeployment } from '../src/config/index.js';
import { defineStrategy, z } from '../src/strategies/api.js';
import { instantiateStrategy } from '../src/engine/strategy/strategy-instance.js';
import { readRecordingPrepared } from '../src/research/replay/prepared-cache.js';
import { recordedRoomsOf } from '../src/research/replay/replay-feed.js';
import { readRecording, resolveRecordingFiles, type Recording } from '../src/research/replay/recording-reader.js';
import { runBacktest } from '../src/research/backtest/run-backtest.js';
import { recordSimulator } from '../src/research/record/record-sim.js';
import type { Bench } from './harness.js';

/** Runs `fn` under the CPU profiler and names the functions with the most self time (share of the samples). */
async function dominant(fn: () => Promise<unknown>, top = 4): Promise<string> {
  const s = new Session();
  s.connect();
  const post = <T>(method: string, params?: object): Promise<T> =>
    new Promise((resolve, reject) => s.post(method, params, (e, r) => (e ? reject(e) : resolve(r as T))));
  try {
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 });
    await post('Profiler.start');
    await fn();
    const { profile } = await post<{ profile: Profiler.Profile }>('Profiler.stop');
    const ticks = new Map<number, number>();
    for (const id of profile.samples ?? []) ticks.set(id, (ticks.get(id) ?? 0) + 1);
    const self = new Map<string, number>();
    let total = 0;
    for (const n of profile.nodes) {
      const t = ticks.get(n.id) ?? 0;
      if (t === 0 || n.callFrame.functionName === '(idle)') continue;
      total += t;
      const where = n.callFrame.url ? ` (${basename(n.callFrame.url).replace(/\?.*$/, '')})` : '';
      const k = `${n.callFrame.functionName || '(anonymous)'}${where}`;
      self.set(k, (self.get(k) ?? 0) + t);
    }
    return [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${k} ${Math.round((v / total) * 100)}%`)
      .join(', ');
  } finally {
    s.disconnect();
  }
}

/** A strategy that joins every recorded room and counts the events it gets; it never trades. */
function countingStrategy(rooms: readonly string[], seen: { n: number }): ReturnType<typeof instantiateStrategy> {
  const count = (): void => void seen.n++;
  const def = defineStrategy<Record<string, never>, null>({
    id: 'count-events',
    description: 'counts events',
    params: z.strictObject({}),
    rooms: () => [...rooms],
    initialState: () => null,
    onPrice: count,
    onSafety: count,
    onCurve: count,
    onGraduated: count,
    onGraduating: count,
    onLaunch: count,
    onTrade: count,
    onLiquidity: count,
    onStats: count,
  });
  return instantiateStrategy(def, {});
}

const bench: Bench = {
  name: 'backtest',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'cp-bench-bt-'));
    try {
      const loaded = loadDeployment('config/paper-sim.yaml');
      await recordSimulator({ seed: 42, durationMs: 6 * 60 * 60_000, loaded, dir, redactor: createRedactor() });
      const files = resolveRecordingFiles(dir);
      /** CPU seconds of this process since `t0` (from `cpu()`). */
      const cpu = (): NodeJS.CpuUsage => process.cpuUsage();
      const since = (t0: NodeJS.CpuUsage): number => {
        const d = process.cpuUsage(t0);
        return (d.user + d.system) / 1e6;
      };
      const best = async (fn: () => Promise<number> | number, runs = 5): Promise<number> => {
        let b = 0;
        for (let i = 0; i < runs; i++) b = Math.max(b, await fn());
        return b;
      };
      const parseAll = (): number => {
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
        return n;
      };
      let lines = 0;
      const baseline = await best(() => {
        const t0 = cpu();
        lines = parseAll();
        return lines / since(t0);
      }, 5);
      const firstPass = await best(async () => {
        const t0 = cpu();
        const rec = readRecording(dir);
        await runBacktest({ loaded, recording: rec });
        return lines / since(t0);
      });
      const rec = readRecording(dir);
      const replay = await best(async () => {
        const t0 = cpu();
        await runBacktest({ loaded, recording: rec });
        return lines / since(t0);
      });

      // The prepared cache: built in a fresh directory each time, then loaded.
      let cacheN = 0;
      const cacheDir = (): string => join(dir, `cache-${cacheN++}`);
      const build = await best(() => {
        const d = cacheDir();
        const t0 = cpu();
        const r = readRecordingPrepared(dir, { version: 'bench', dir: d });
        if (r.cache.status !== 'built') throw new Error(`bench: cache ${r.cache.status} ${r.cache.reason ?? ''}`);
        return lines / since(t0);
      });
      const hitDir = cacheDir();
      readRecordingPrepared(dir, { version: 'bench', dir: hitDir });
      const loadCached = (): Recording => {
        const r = readRecordingPrepared(dir, { version: 'bench', dir: hitDir });
        if (r.cache.status !== 'hit') throw new Error(`bench: cache ${r.cache.status} ${r.cache.reason ?? ''}`);
        return r.recording;
      };
      const load = await best(() => {
        const t0 = cpu();
        loadCached();
        return lines / since(t0);
      }, 5);
      const repeated = await best(async () => {
        const t0 = cpu();
        await runBacktest({ loaded, recording: loadCached() });
        return lines / since(t0);
      });

      // A simple strategy over every recorded room, from the cache.
      const rooms = [...recordedRoomsOf(rec.lines)].sort();
      const seen = { n: 0 };
      const simple = countingStrategy(rooms, seen);
      let events = 0;
      const simpleRun = async (recording: Parameters<typeof runBacktest>[0]['recording']): Promise<void> => {
        seen.n = 0;
        await runBacktest({ loaded, recording, strategies: [simple] });
        events = seen.n;
      };
      const simpleFull = await best(async () => {
        const t0 = cpu();
        await simpleRun(loadCached());
        return events / since(t0);
      });
      const cached = loadCached();
      const simpleReplay = await best(async () => {
        const t0 = cpu();
        await simpleRun(cached);
        return events / since(t0);
      });
      const firstPassSimple = await best(async () => {
        const t0 = cpu();
        await simpleRun(readRecording(dir));
        return lines / since(t0);
      });

      // The recorder's cost on ingest: CPU time of the thread that ingests the feed (this one: Linux's
      // per-thread schedstat, updated at scheduler ticks, so each measure runs the frames 10 times,
      // about 100 ms) per frame, frames arriving 32 to an event-loop turn as from a socket read,
      // less the same loop without a recorder; against what that thread spends on the frame anyway:
      // its JSON.parse (a bare parse of the same text) and its routing through router + engine (the
      // simple strategy's replay per event, the cheapest engine work there is). The socket's own
      // cost is left out, so the ratio overstates the recorder's share. Its total CPU (all threads,
      // gzip on the writing thread included) is the process's time from the first frame to the
      // closed file.
      const frames: string[] = [];
      for (const l of rec.lines) if (l.kind === 'frame' && l.frame !== undefined) frames.push(JSON.stringify(l.frame));
      const REPEAT = 10;
      const threadNs = (): number => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
      const perFrame = (ns: number): number => ns / (frames.length * REPEAT);
      let parseNs = Infinity;
      for (let run = 0; run < 3; run++) {
        const t0 = threadNs();
        for (let k = 0; k < REPEAT; k++) for (const f of frames) JSON.parse(f);
        parseNs = Math.min(parseNs, perFrame(threadNs() - t0));
      }
      /** Feeds every frame REPEAT times, 32 to a turn, to `take`; the thread's CPU time per frame. */
      const feedTurns = async (take: (f: string) => void): Promise<number> => {
        const t0 = threadNs();
        for (let k = 0; k < REPEAT; k++) {
          for (let i = 0; i < frames.length; i++) {
            take(frames[i]!);
            if ((i & 31) === 31) await new Promise((r) => setImmediate(r));
          }
        }
        return perFrame(threadNs() - t0);
      };
      let loopNs = Infinity;
      let bytesSeen = 0;
      for (let run = 0; run < 3; run++) loopNs = Math.min(loopNs, await feedTurns((f) => void (bytesSeen += f.length)));
      let part = 0;
      const recordCost = { threadNs: Infinity, processNs: Infinity };
      for (let run = 0; run < 3; run++) {
        const recorder = createRecorder({
          dir: join(dir, `rec-cost-${part++}`),
          source: 'bench',
          clock: manualClock(0),
          clockKind: 'simulator',
          rooms: [],
          endpoints: {},
          redactor: createRedactor(['bench-api-key-0123456789']),
          log: silentLogger(),
        });
        await recorder.writer.drained(); // the writing thread is up
        const c0 = cpu();
        const onThread = await feedTurns((f) => recorder.onRawFrame(f, 0 as UnixMs));
        await recorder.stop();
        recordCost.threadNs = Math.min(recordCost.threadNs, onThread - loopNs);
        recordCost.processNs = Math.min(recordCost.processNs, (since(c0) * 1e9) / (frames.length * REPEAT));
      }
      const ingestNs = parseNs + 1e9 / simpleReplay;

      // What dominates each step (profiled after the timings, so the profiler does not skew them).
      const top = {
        baseline: await dominant(async () => parseAll()),
        firstPass: await dominant(() => runBacktest({ loaded, recording: readRecording(dir) })),
        build: await dominant(async () => readRecordingPrepared(dir, { version: 'bench', dir: cacheDir() })),
        load: await dominant(async () => loadCached()),
        simple: await dominant(() => simpleRun(cached)),
      };
      return [
        {
          name: 'recorder: on the ingest thread, per frame',
          value: recordCost.threadNs,
          unit: 'ns',
          ratio: recordCost.threadNs / ingestNs,
          note: `goal < 5 % of ingest (${ingestNs.toFixed(0)} ns: JSON.parse ${parseNs.toFixed(0)} ns + router and engine); all threads, gzip included: ${recordCost.processNs.toFixed(0)} ns`,
        },
        { name: `JSON.parse of the recording (${lines} lines)`, value: baseline, unit: 'lines/s', note: `dominant: ${top.baseline}` },
        {
          name: 'first pass: read + replay through the engine',
          value: firstPass,
          unit: 'lines/s',
          ratio: firstPass / baseline,
          note: `goal >= 0.8; dominant: ${top.firstPass}`,
        },
        {
          name: 'first pass with the simple strategy (no orders)',
          value: firstPassSimple,
          unit: 'lines/s',
          ratio: firstPassSimple / baseline,
          note: "reading + router + engine, without the deployment's own work",
        },
        { name: 'replay of the parsed recording', value: replay, unit: 'lines/s', ratio: replay / baseline },
        { name: 'prepared cache: read + parse + build it', value: build, unit: 'lines/s', ratio: build / baseline, note: `dominant: ${top.build}` },
        { name: 'prepared cache: load it (a later run)', value: load, unit: 'lines/s', ratio: load / baseline, note: `dominant: ${top.load}` },
        { name: 'later run from the cache: load + replay', value: repeated, unit: 'lines/s', ratio: repeated / baseline },
        { name: `simple strategy from the cache: load + replay (${events} events)`, value: simpleFull, unit: 'events/s', note: 'goal >= 1M/s per core' },
        { name: 'simple strategy: replay of the loaded cache', value: simpleReplay, unit: 'events/s', note: `goal >= 1M/s per core; dominant: ${top.simple}` },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
