/**
 * The engine's per-event path on the shipped deployment (issue 40): a recording of
 * `config/paper-sim.yaml` on the simulator (seed 5) replayed through the deployment's paper session
 * (engine, strategies, exit rules, risk gate, paper executor, manual run clock), in CPU time, against
 * the bare `JSON.parse` of the same lines measured in the same run.
 *
 * What is timed is the engine and what it drives, nothing of the replay's input: the recording's
 * frames are read and typed by the Datastream client's room registry before the clock starts (the
 * typed messages are what the client hands the engine live), and a minimal feed delivers each one
 * to the room's handler when a strategy holds the room, after moving the run clock to the line's
 * time (timers and paper fills fire in between, as in a backtest). The equity is read after every
 * line while a position is open or a decision was taken, as a backtest's drawdown watch does.
 *
 * Rows: lines of the recording per CPU second (the unit: the goal is 250,000 from the
 * prepared form), and events the engine dispatched per CPU second. `ENGINE_BENCH_HOURS` sets the
 * recording's simulated span (default 2; made once, kept under the OS temp dir), `ENGINE_BENCH_DATA`
 * names a directory holding one already (its span then is what it holds). Before/after in one
 * session: build the other commit's dist/ elsewhere and run this bench with `BENCH_DIST=<its dist>`
 * alternately with a plain run (bench/support/compiled-hooks.mjs).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Bench, BenchRow } from './harness.js';
import { loadDeployment } from '../src/config/index.js';
import { createRedactor, manualClock, seededRandom, silentLogger, type UnixMs } from '../src/core/index.js';
import { parseRoomMessage } from '../src/client/datastream/index.js';
import type { StreamFeed, StreamMessage } from '../src/engine/events/feed-port.js';
import { recordSimulator } from '../src/research/record/record-sim.js';
import { resolveStrategies } from '../src/runtime/compose/resolve-strategies.js';
import { createPaperSession } from '../src/runtime/paper/paper-session.js';

const HOURS = Number(process.env['ENGINE_BENCH_HOURS'] ?? 2);
const SEED = 5;
const ROUNDS = 3;

/** The recording's lines as text, made once per span. */
async function recordingLines(): Promise<string[]> {
  const dir = process.env['ENGINE_BENCH_DATA'] ?? join(tmpdir(), `cp-bench-engine-seed${SEED}-${HOURS}h`);
  const files = (): string[] => (existsSync(dir) ? readdirSync(dir).filter((f) => /\.\d{4}\.jsonl\.gz$/.test(f)) : []);
  if (files().length === 0) {
    mkdirSync(dir, { recursive: true });
    const loaded = loadDeployment('config/paper-sim.yaml');
    await recordSimulator({ seed: SEED, durationMs: HOURS * 3_600_000, loaded, dir, redactor: createRedactor() });
  }
  const out: string[] = [];
  for (const f of files().sort()) {
    const text = gunzipSync(readFileSync(join(dir, f))).toString('utf8');
    for (const line of text.split('\n')) if (line.length > 0 && !line.startsWith('{"k":"header"')) out.push(line);
  }
  return out;
}

interface Step {
  readonly t: number;
  /** The typed message of a frame line; undefined for the run's other lines (they only move the clock). */
  readonly msg: StreamMessage | undefined;
}

function typedSteps(lines: readonly string[]): { steps: Step[]; startAt: number; endAt: number } {
  const steps: Step[] = [];
  let startAt: number | undefined;
  let endAt = 0;
  for (const line of lines) {
    const o = JSON.parse(line) as { t: number; k?: string; rt?: number; f?: { type?: string; room?: string; data?: unknown } };
    if (o.k === 'start') startAt ??= o.t;
    if (o.k === 'end' || o.k === 'drained') endAt = o.t;
    const f = o.f;
    let msg: StreamMessage | undefined;
    if (f?.type === 'message' && typeof f.room === 'string') {
      const r = parseRoomMessage(f.room, f.data, (o.rt ?? o.t) as UnixMs);
      if (r.ok) msg = r.message;
    }
    steps.push({ t: o.t, msg });
  }
  return { steps, startAt: startAt ?? steps[0]?.t ?? 0, endAt: endAt || (steps[steps.length - 1]?.t ?? 0) };
}

const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

/** One replay of `steps` through a fresh paper session: CPU seconds, events dispatched, decisions taken. */
async function replay(steps: readonly Step[], startAt: number, endAt: number): Promise<{ cpu: number; events: number; decisions: number }> {
  const loaded = loadDeployment('config/paper-sim.yaml');
  const deployment = { ...loaded.deployment, telemetry: { ...loaded.deployment.telemetry, decisionLog: undefined } };
  const strategies = await resolveStrategies({ ...loaded, deployment });
  const handlers = new Map<string, (m: StreamMessage) => void>();
  const feed: StreamFeed = {
    subscribe(room, handler) {
      handlers.set(room, handler);
      return () => void handlers.delete(room);
    },
    onGap: () => () => undefined,
  };
  const clock = manualClock(startAt);
  let decisions = 0;
  const session = createPaperSession({
    deployment,
    strategies,
    feed,
    clock,
    random: seededRandom(SEED),
    seed: SEED,
    log: silentLogger(),
    decisions: () => void decisions++,
  });
  const { portfolio } = session.engine;
  // each tree's backtest watch: equityLamports()/openCount() where the book has them, else totals() (the tree before issue 40)
  const cheap = typeof (portfolio as { equityLamports?: unknown }).equityLamports === 'function';
  await session.start();
  const c0 = process.cpuUsage();
  let seen = 0;
  let open = false;
  let sink = 0n;
  for (const s of steps) {
    if (s.t > endAt) break;
    if (s.t > clock.now()) clock.advanceTo(s.t as UnixMs);
    if (s.msg !== undefined) handlers.get(s.msg.room)?.(s.msg);
    // the backtest's drawdown watch: equity after a decision, or while a position is open
    if (open || decisions !== seen) {
      seen = decisions;
      if (cheap) {
        open = portfolio.openCount() > 0;
        sink ^= portfolio.equityLamports();
      } else {
        const t = portfolio.totals();
        open = t.openPositions > 0;
        sink ^= t.equityLamports;
      }
    }
  }
  const cpu = cpuSeconds(c0);
  const events = session.engine.stats.summary().events;
  await session.stop();
  if (sink === -1n) console.log('unreachable');
  return { cpu, events, decisions };
}

const bench: Bench = {
  name: 'engine-replay',
  async run(): Promise<BenchRow[]> {
    const lines = await recordingLines();
    const { steps, startAt, endAt } = typedSteps(lines);
    const parse: number[] = [];
    const runs: { cpu: number; events: number; decisions: number }[] = [];
    const load0 = loadavg()[0]!;
    for (let round = 0; round < ROUNDS; round++) {
      const c0 = process.cpuUsage();
      let n = 0;
      for (const l of lines) n += (JSON.parse(l) as { t: number }).t & 1;
      if (n < 0) console.log('unreachable');
      parse.push(cpuSeconds(c0));
      runs.push(await replay(steps, startAt, endAt));
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const parseRate = lines.length / median(parse);
    const lineRate = lines.length / median(runs.map((r) => r.cpu));
    const eventRate = runs[0]!.events / median(runs.map((r) => r.cpu));
    const load = `load ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`;
    return [
      { name: `JSON.parse of each line of the recording (baseline)`, value: parseRate, unit: 'lines/CPU s', note: `${lines.length} lines; ${load}` },
      {
        name: 'paper-sim engine replay from typed messages',
        value: lineRate,
        unit: 'lines/CPU s',
        ratio: lineRate / parseRate,
        note: `median of ${ROUNDS}; ${runs[0]!.events} events, ${runs[0]!.decisions} decisions (same every round: ${runs.every((r) => r.events === runs[0]!.events && r.decisions === runs[0]!.decisions)})`,
      },
      { name: 'paper-sim engine replay, events dispatched', value: eventRate, unit: 'events/CPU s', ratio: eventRate / parseRate },
    ];
  },
};

export default bench;
