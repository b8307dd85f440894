/**
 * How well a backtest predicts live, out of sample (issue 39): for each deployment (default
 * config/live-sim.yaml and config/live-sim-alt.yaml, other strategies and exits), every seed is run
 * live on the embedded simulator's ledger (`run --live` with `record:` on). The model is fitted on the
 * fit seeds only, as a user would: `chainpilot calibrate` over their journals (stage 1), the backtests
 * of their recordings with that block verified against their decision logs, and `calibrate --against`
 * those reports with the recordings (stage 2, `extraSlippageBps`; fills in graduated pools apart).
 * Then each held-out seed, never fitted, is backtested with that model and verified against its own
 * live decision log. The backtest learns latency and costs only through `calibrate` from the fit
 * seeds' live runs, never from the simulator's settings.
 *
 * Per held-out (seed, deployment), against live as the baseline: the share of live fills paired with
 * a backtest fill, the closed-trade count ratio, the median |price drift| of paired fills (rent left
 * out) and the realised PnL ratio (closed trades' PnL, failed-transaction fees outside trades left out
 * on both sides), each with whether it is within the issue's bounds (>= 90 %, trades +-15 %, drift
 * <= 50 bps, PnL +-25 %). Goal: all four on at least 5 of 6 pairs, and the same figures on a second run.
 *
 * Environment: `LIVE_DRIFT_DEPLOYMENTS` (comma-separated files), `LIVE_DRIFT_FIT_SEEDS` (default
 * 1,2), `LIVE_DRIFT_HELD_OUT_SEEDS` (default 101,102,103), `LIVE_DRIFT_SPEED` (a number of simulated
 * seconds per wall second, or `max`; default max), `LIVE_DRIFT_WINDOW` (simulated seconds of each live
 * run, default 1,200: the run is stopped at that instant of its run clock, so two runs of a seed cover
 * the same window whatever the machine's load), `LIVE_DRIFT_SECONDS` (wall seconds after which a live
 * run is stopped anyway; default 600), `LIVE_DRIFT_RUNS` (default 1: 2 repeats the whole
 * measurement and prints whether each held-out figure came out the same), `LIVE_DRIFT_KEEP` (keep the
 * work folder). A live run's unpaired fills are counted by cause (bench/live-drift-causes.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { getBase58Decoder } from '@solana/kit';
import { writeNewKeypairFile } from '../src/cli/commands/wallet-file.js';
import { silentLogger } from '../src/core/index.js';
import type { DecisionEntry } from '../src/engine/logs/decision-log.js';
import { runBacktestJob } from '../src/research/backtest/backtest-job.js';
import { runRecording } from '../src/research/record/run-recorder.js';
import type { RunRecording } from '../src/runtime/compose/recording-port.js';
import { heldLonger, unpairedCauses } from './live-drift-causes.js';
import { calibrate, modelBlockYaml, secondStage } from '../src/research/calibrate/calibrate.js';
import { graduationsOf } from '../src/research/calibrate/graduations.js';
import { computeReport } from '../src/research/report/compute-report.js';
import type { BacktestReport, ReportRun } from '../src/research/report/report-types.js';
import { runLive } from '../src/runtime/shell/run-live.js';
import { loadNote, type Bench, type BenchRow } from './harness.js';

const seedList = (name: string, fallback: string): number[] => {
  const raw = process.env[name] ?? fallback;
  const seeds = raw.split(',').map((x) => Number(x.trim()));
  if (seeds.length === 0 || seeds.some((n) => !Number.isSafeInteger(n) || n < 0))
    throw new Error(`${name} must be comma-separated non-negative integer seeds (got ${raw}); e.g. ${name}=${fallback}`);
  return seeds;
};
const FIT_SEEDS = seedList('LIVE_DRIFT_FIT_SEEDS', '1,2');
const HELD_OUT_SEEDS = seedList('LIVE_DRIFT_HELD_OUT_SEEDS', '101,102,103');
if (HELD_OUT_SEEDS.some((s) => FIT_SEEDS.includes(s)))
  throw new Error(`LIVE_DRIFT_HELD_OUT_SEEDS (${HELD_OUT_SEEDS.join(',')}) must share no seed with LIVE_DRIFT_FIT_SEEDS (${FIT_SEEDS.join(',')})`);
const DEPLOYMENTS = (process.env['LIVE_DRIFT_DEPLOYMENTS'] ?? 'config/live-sim.yaml,config/live-sim-alt.yaml').split(',').map((f) => f.trim());
/**
 * Simulated seconds per wall second of the live runs, or `max` (the lockstep: as fast as the machine goes).
 * Without the landing model in simulated time, live latency is wall-time work times this speed.
 */
const SPEED_RAW = process.env['LIVE_DRIFT_SPEED'] ?? 'max';
const SPEED: number | 'max' = SPEED_RAW === 'max' ? 'max' : Number(SPEED_RAW);
if (SPEED !== 'max' && (!Number.isFinite(SPEED) || SPEED <= 0))
  throw new Error(`LIVE_DRIFT_SPEED must be a positive number of simulated seconds per wall second or max (got ${SPEED_RAW}); e.g. LIVE_DRIFT_SPEED=10`);
const WINDOW_S = Number(process.env['LIVE_DRIFT_WINDOW'] ?? 1200);
if (!Number.isFinite(WINDOW_S) || WINDOW_S <= 0)
  throw new Error(`LIVE_DRIFT_WINDOW must be a positive number of simulated seconds (got ${process.env['LIVE_DRIFT_WINDOW']}); e.g. LIVE_DRIFT_WINDOW=1200`);
const SECONDS = Number(process.env['LIVE_DRIFT_SECONDS'] ?? 600);
const RUNS = Number(process.env['LIVE_DRIFT_RUNS'] ?? 1);
if (!Number.isInteger(RUNS) || RUNS < 1)
  throw new Error(`LIVE_DRIFT_RUNS must be a positive integer (got ${process.env['LIVE_DRIFT_RUNS']}); e.g. LIVE_DRIFT_RUNS=2`);

/** The issue's bounds on one held-out pair. */
export const GOALS = { pairedPct: 90, tradesRatio: [0.85, 1.15], driftBps: 50, pnlRatio: [0.75, 1.25] } as const;

const EMPTY_RUN: ReportRun = {
  deployment: 'live',
  strategies: [],
  recordings: [],
  chainpilot: 'bench',
  seed: 0,
  from: 0,
  to: 0,
  lines: 0,
  wallMs: 0,
  sampleMs: 60_000,
  dataLookups: { exact: 0, misses: 0, fallbackAnswers: 0 },
  feed: {},
  decisionLogSha256: '',
};

/** Closed trades and their realised PnL (lamports) of a decision log. */
export function realised(log: string): { trades: number; pnlLamports: bigint } {
  const decisions = log
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as DecisionEntry);
  const r: BacktestReport = computeReport({
    decisions,
    equity: [],
    prices: new Map(),
    openPositions: [],
    startingLamports: 1n,
    startedAt: 0,
    endedAt: 1,
    sampleMs: 60_000,
    run: EMPTY_RUN,
    fingerprint: '',
  });
  let pnl = 0n;
  for (const t of r.trades) if (t.status === 'closed') pnl += BigInt(Math.round(Number(t.pnlSol) * 1e9));
  return { trades: r.metrics.trades, pnlLamports: pnl };
}

interface LiveRun {
  readonly deployment: string;
  readonly seed: number;
  /** The live deployment file, as run (the backtests append their paper.model block to it). */
  readonly file: string;
  readonly log: string;
  readonly journal: string;
  readonly rec: string;
}

/** One held-out (seed, deployment)'s four figures. */
export interface HeldOutFigures {
  readonly deployment: string;
  readonly seed: number;
  readonly pairedPct: number;
  readonly tradesRatio: number;
  readonly driftBps: number;
  readonly pnlRatio: number;
  readonly note: string;
}

/** Which of the four figures are within the issue's bounds. */
export function withinBounds(f: HeldOutFigures): { paired: boolean; trades: boolean; drift: boolean; pnl: boolean; all: boolean } {
  const paired = f.pairedPct >= GOALS.pairedPct;
  const trades = f.tradesRatio >= GOALS.tradesRatio[0] && f.tradesRatio <= GOALS.tradesRatio[1];
  const drift = f.driftBps <= GOALS.driftBps;
  const pnl = f.pnlRatio >= GOALS.pnlRatio[0] && f.pnlRatio <= GOALS.pnlRatio[1];
  return { paired, trades, drift, pnl, all: paired && trades && drift && pnl };
}

const mark = (ok: boolean): string => (ok ? 'in' : 'OUT');
const fmt = (x: number, digits: number): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

/** The held-out table, one line per (deployment, seed). */
export function heldOutTable(figures: readonly HeldOutFigures[]): string {
  const lines = ['| deployment | held-out seed | paired % | trades bt/live | median abs drift bps | PnL bt/live | all four |', '| - | - | - | - | - | - | - |'];
  for (const f of figures) {
    const b = withinBounds(f);
    lines.push(
      `| ${f.deployment} | ${f.seed} | ${fmt(f.pairedPct, 1)} ${mark(b.paired)} | ${fmt(f.tradesRatio, 2)} ${mark(b.trades)} | ${fmt(f.driftBps, 0)} ${mark(b.drift)} | ${fmt(f.pnlRatio, 2)} ${mark(b.pnl)} | ${b.all ? 'yes' : 'no'} |`,
    );
  }
  const met = figures.filter((f) => withinBounds(f).all).length;
  lines.push(`${met} of ${figures.length} held-out pairs within all four bounds (goal: at least ${Math.max(0, figures.length - 1)} of ${figures.length})`);
  return lines.join('\n');
}

/** The live deployment file of one run: a fresh wallet from the environment, its own journal, decision log and recording. */
function liveFile(deployment: string, dir: string): { text: string; log: string; journal: string; rec: string } {
  const log = join(dir, 'live.decisions.jsonl');
  const journal = join(dir, 'journal.sqlite');
  const rec = join(dir, 'rec');
  const configDir = dirname(resolve(deployment));
  const text = readFileSync(deployment, 'utf8')
    .replace(/keypairPath: \S+/, 'secretKey: ${WALLET_KEY}')
    .replace(/^( {2}path: )\S+$/m, `$1${journal}`)
    // a strategy loaded by path is resolved from the deployment's own folder
    .replace(/use: \.\//g, `use: ${configDir}/`)
    .replace('logLevel: warn', `logLevel: warn\n  decisionLog: ${log}`)
    .concat(`record:\n  dir: ${rec}\n`);
  if (/\npaper:/.test(text)) throw new Error(`${deployment} has a paper: block; the bench appends the calibrated one`);
  return { text, log, journal, rec };
}

/**
 * The run's recorder, which also stops the run `WINDOW_S` simulated seconds after it opened (on the run
 * clock): two live runs of a seed then cover the same window, however fast the machine went.
 */
function stoppingAtWindow(stop: AbortController, reached: { at: boolean }): RunRecording {
  return {
    open(d, c) {
      c.clock.setTimeout(() => {
        reached.at = true;
        stop.abort();
      }, WINDOW_S * 1000);
      return runRecording.open(d, c);
    },
  };
}

async function runSeed(deployment: string, seed: number, dir: string, secret: string): Promise<LiveRun> {
  const d = join(dir, `${basename(deployment, '.yaml')}-seed-${seed}`);
  const { text, log, journal, rec } = liveFile(deployment, d);
  const file = join(dir, `${basename(deployment, '.yaml')}-live-${seed}.yaml`);
  writeFileSync(file, text);
  const stop = new AbortController();
  const reached = { at: false };
  const r = await runLive({
    file,
    recording: stoppingAtWindow(stop, reached),
    signal: stop.signal,
    live: true,
    durationMs: SECONDS * 1000,
    speed: SPEED,
    seed,
    env: { WALLET_KEY: secret },
    out: () => undefined,
    log: silentLogger(),
  });
  if (r.exitCode !== 0) throw new Error(`live run of ${deployment} seed ${seed} exited ${r.exitCode}: ${r.problem ?? ''}`);
  if (!reached.at)
    console.log(`live run of ${deployment} seed ${seed} stopped after ${SECONDS} s of wall time, before ${WINDOW_S} simulated seconds: its window is shorter`);
  return { deployment, seed, file, log, journal, rec };
}

async function backtestWith(run: LiveRun, dir: string, stage: string, paperBlock: string, secret: string) {
  const file = join(dir, `${basename(run.deployment, '.yaml')}-backtest-${stage}-${run.seed}.yaml`);
  writeFileSync(file, readFileSync(run.file, 'utf8').concat(paperBlock));
  const outDir = join(dir, `${basename(run.deployment, '.yaml')}-out-${stage}-${run.seed}`);
  const job = await runBacktestJob({ file, env: { WALLET_KEY: secret }, data: run.rec, outDir, verifyAgainst: run.log, cache: false });
  return { job, report: join(outDir, 'report.json') };
}

/** One whole measurement: live runs of every seed, the fit on the fit seeds, the held-out backtests. */
async function measure(dir: string, secret: string, rows: BenchRow[], pass: number): Promise<HeldOutFigures[]> {
  mkdirSync(dir, { recursive: true });
  const figures: HeldOutFigures[] = [];
  for (const deployment of DEPLOYMENTS) {
    const name = basename(deployment, '.yaml');
    const fitRuns: LiveRun[] = [];
    for (const seed of FIT_SEEDS) fitRuns.push(await runSeed(deployment, seed, dir, secret));
    const heldRuns: LiveRun[] = [];
    for (const seed of HELD_OUT_SEEDS) heldRuns.push(await runSeed(deployment, seed, dir, secret));
    // Each live run's own latency, decision to landing (simulated ms): how much the machine moved it.
    for (const r of [...fitRuns, ...heldRuns]) {
      const c = calibrate([r.journal]);
      const q = c.latencyQuantilesMs;
      rows.push({
        name: `run ${pass} ${name} seed ${r.seed}: live latency`,
        value: q?.p50 ?? Number.NaN,
        unit: 'ms median',
        note: `${q ? `p10 ${q.p10}, p90 ${q.p90} simulated ms` : 'no fills'}, ${c.latencyResolution}; ${c.fills} fills; speed ${SPEED}, ${WINDOW_S} simulated s; ${loadNote()}`,
      });
    }
    // The fit, from the fit seeds only: stage 1 from their journals, stage 2 from their backtests' reports.
    const fit = calibrate(fitRuns.map((r) => r.journal));
    const stage1 = [];
    for (const r of fitRuns) stage1.push(await backtestWith(r, dir, `fit1-p${pass}`, modelBlockYaml(fit), secret));
    const stage2 = secondStage(
      stage1.map((b) => b.report),
      50,
      undefined,
      graduationsOf(fitRuns.map((r) => r.rec)),
    );
    const model = modelBlockYaml(fit, stage2);
    rows.push({
      name: `run ${pass} ${name}: fit on seeds ${FIT_SEEDS.join(',')}`,
      value: fit.latencyQuantilesMs?.p50 ?? Number.NaN,
      unit: 'ms median latency',
      note: `${fit.fills} fills of ${fit.intents} intents, ${fit.latencyResolution}; fee ${fit.feeLamports}, rent ${fit.rentLamports}, simulation ${(fit.simulation.rate * 100).toFixed(1)} %, on chain ${(fit.onChain.rate * 100).toFixed(1)} %; extraSlippageBps ${stage2.extraSlippageBps}${stage2.graduated ? `, graduated pools ${stage2.graduated.extraSlippageBps} (${stage2.graduated.pairs} pairs)` : ''} (${stage2.pairs} pairs, ${stage2.refusals} one-sided refusals)`,
    });
    for (const r of heldRuns) {
      const { job } = await backtestWith(r, dir, `held-p${pass}`, model, secret);
      const s = job.liveVsBacktest!.summary;
      const live = realised(readFileSync(r.log, 'utf8'));
      const bt = realised(job.result.decisionLog);
      const f: HeldOutFigures = {
        deployment: name,
        seed: r.seed,
        pairedPct: s.pairedPct ?? 0,
        tradesRatio: live.trades === 0 ? Number.NaN : bt.trades / live.trades,
        driftBps: s.drift.all?.medianAbsBps ?? Number.NaN,
        pnlRatio: live.pnlLamports === 0n ? Number.NaN : Number(bt.pnlLamports) / Number(live.pnlLamports),
        note: `${s.pairedFills} of ${s.liveFills} live fills paired; trades ${bt.trades} vs ${live.trades}; PnL ${Number(bt.pnlLamports) / 1e9} vs ${Number(live.pnlLamports) / 1e9} SOL`,
      };
      const b = withinBounds(f);
      figures.push(f);
      const liveLog = readFileSync(r.log, 'utf8');
      const causes = unpairedCauses(liveLog, job.result.decisionLog).map((c) => `${c.cause} ${c.count}`);
      const longer = heldLonger(liveLog, job.result.decisionLog).map((c) => `${c.reason} ${c.count}`);
      rows.push({
        name: `run ${pass} held-out ${name} seed ${r.seed}: unpaired live fills by cause`,
        value: s.liveFills - s.pairedFills,
        unit: 'fills',
        note: `${causes.join('; ') || 'none'}; positions the backtest closed over 10 s later than live, by its exit: ${longer.join('; ') || 'none'}`,
      });
      rows.push({
        name: `run ${pass} held-out ${name} seed ${r.seed}`,
        value: [b.paired, b.trades, b.drift, b.pnl].filter(Boolean).length,
        unit: 'of 4 in bounds',
        ratio: f.pnlRatio,
        note: `paired ${fmt(f.pairedPct, 1)} % ${mark(b.paired)}, trades x${fmt(f.tradesRatio, 2)} ${mark(b.trades)}, drift ${fmt(f.driftBps, 0)} bps ${mark(b.drift)}, PnL x${fmt(f.pnlRatio, 2)} ${mark(b.pnl)}; ${f.note}; ${loadNote()}`,
      });
    }
  }
  return figures;
}

const bench: Bench = {
  name: 'live-drift',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'chainpilot-bench-drift-'));
    try {
      const walletPath = join(dir, 'wallet.json');
      writeNewKeypairFile(walletPath);
      const secret = getBase58Decoder().decode(Uint8Array.from(JSON.parse(readFileSync(walletPath, 'utf8')) as number[]));
      rmSync(walletPath);
      const rows: BenchRow[] = [];
      const passes: HeldOutFigures[][] = [];
      for (let pass = 1; pass <= RUNS; pass++) {
        const figures = await measure(join(dir, `run-${pass}`), secret, rows, pass);
        passes.push(figures);
        const met = figures.filter((f) => withinBounds(f).all).length;
        console.log(`live-drift run ${pass} (speed ${SPEED}, ${WINDOW_S} simulated s per live run, ${loadNote()}):\n${heldOutTable(figures)}`);
        rows.push({
          name: `run ${pass}: held-out pairs within all four bounds`,
          value: met,
          unit: `of ${figures.length}`,
          note: `goal >= ${figures.length - 1}`,
        });
      }
      for (let pass = 2; pass <= RUNS; pass++) {
        const same = passes[pass - 1]!.filter((f, i) => JSON.stringify(f) === JSON.stringify(passes[0]![i])).length;
        rows.push({
          name: `run ${pass}: held-out figures equal to run 1's`,
          value: same,
          unit: `of ${passes[0]!.length}`,
          note: 'goal: all (a repeatable rehearsal)',
        });
      }
      return rows;
    } finally {
      if (process.env['LIVE_DRIFT_KEEP'] === undefined) rmSync(dir, { recursive: true, force: true });
      else console.log(`kept ${dir}`);
    }
  },
};

export default bench;
