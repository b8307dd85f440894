/**
 * `record --sim` speed in simulated seconds per CPU second (user + system, every thread: gzip
 * included), against a baseline measured in the same run: the simulator's market model alone,
 * stepped on a manual clock over the same simulated span with no client connected (the floor a
 * recording cannot beat). The recording row runs `config/paper-sim.yaml` as
 * `chainpilot record config/paper-sim.yaml --sim --seed 42` does: the simulator, a Datastream client
 * over a real WebSocket, the deployment's paper session and the recorder writing gzip.
 * `RECORD_BENCH_MINUTES` sets the simulated span (default 60).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bench, BenchRow } from './harness.js';
import { loadDeployment } from '../src/config/index.js';
import { createRedactor, manualClock, type UnixMs } from '../src/core/index.js';
import { DEFAULT_SIM_START, recordSimulator } from '../src/research/record/record-sim.js';
import { startSimulator } from '../src/sim/start-simulator.js';

const SPAN_MS = Number(process.env['RECORD_BENCH_MINUTES'] ?? 60) * 60_000;
const SEED = 42;

const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

/** The market model alone: one simulated second per step, nobody subscribed. */
async function modelAlone(): Promise<number> {
  const startAt = DEFAULT_SIM_START as UnixMs;
  const clock = manualClock(startAt);
  const sim = await startSimulator({ seed: SEED, clock, startAt, apiKey: 'bench', services: [] });
  const start = process.cpuUsage();
  for (let t = 0; t < SPAN_MS; t += 1_000) clock.advance(1_000);
  const cpu = cpuSeconds(start);
  await sim.stop();
  return SPAN_MS / 1000 / cpu;
}

async function recording(): Promise<{ rate: number; lines: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-record-'));
  try {
    const loaded = loadDeployment('config/paper-sim.yaml');
    const start = process.cpuUsage();
    const r = await recordSimulator({ seed: SEED, durationMs: SPAN_MS, loaded, dir, redactor: createRedactor() });
    return { rate: SPAN_MS / 1000 / cpuSeconds(start), lines: r.lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const bench: Bench = {
  name: 'record-sim',
  async run(): Promise<BenchRow[]> {
    const base = await modelAlone();
    const rec = await recording();
    const minutes = SPAN_MS / 60_000;
    return [
      { name: `market model alone, ${minutes} simulated min (baseline)`, value: base, unit: 'sim s/CPU s' },
      {
        name: `record --sim paper-sim.yaml, ${minutes} simulated min`,
        value: rec.rate,
        unit: 'sim s/CPU s',
        ratio: rec.rate / base,
        note: `${rec.lines} lines; ${(3600 / rec.rate).toFixed(1)} CPU s per simulated hour`,
      },
    ];
  },
};

export default bench;
