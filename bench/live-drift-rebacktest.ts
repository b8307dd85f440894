/**
 * The backtest half of `npm run bench live-drift` again, on the live runs of a kept work folder
 * (`LIVE_DRIFT_KEEP=1`): the fit on the fit seeds' journals, their stage-1 backtests and stage 2, then
 * the held-out backtests and their four figures. For a change to the backtest's model, measured on
 * the same live rehearsals (the live runs are repeatable: the bench gives the same ones again).
 *
 *   node --import tsx bench/live-drift-rebacktest.ts /tmp/chainpilot-bench-drift-XXXX/run-1 [deployment names]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getBase58Decoder } from '@solana/kit';
import { writeNewKeypairFile } from '../src/cli/commands/wallet-file.js';
import { runBacktestJob } from '../src/research/backtest/backtest-job.js';
import { calibrate, modelBlockYaml, secondStage } from '../src/research/calibrate/calibrate.js';
import { graduationsOf } from '../src/research/calibrate/graduations.js';
import { heldLonger, unpairedCauses } from './live-drift-causes.js';
import { heldOutTable, realised, type HeldOutFigures } from './live-drift.bench.js';

const [dir, ...names] = process.argv.slice(2);
if (!dir) throw new Error('usage: live-drift-rebacktest.ts KEPT_RUN_DIR [live-sim live-sim-alt]');
const fitSeeds = (process.env['LIVE_DRIFT_FIT_SEEDS'] ?? '1,2').split(',').map(Number);
const heldSeeds = (process.env['LIVE_DRIFT_HELD_OUT_SEEDS'] ?? '101,102,103').split(',').map(Number);
const walletPath = join(dir, 'rebacktest-wallet.json');
if (!existsSync(walletPath)) writeNewKeypairFile(walletPath);
const secret = getBase58Decoder().decode(Uint8Array.from(JSON.parse(readFileSync(walletPath, 'utf8')) as number[]));
const tag = process.env['TAG'] ?? 're';

async function backtest(name: string, seed: number, stage: string, block: string) {
  const live = join(dir!, `${name}-live-${seed}.yaml`);
  const file = join(dir!, `${name}-backtest-${stage}-${tag}-${seed}.yaml`);
  writeFileSync(file, readFileSync(live, 'utf8').concat(block));
  const outDir = join(dir!, `${name}-out-${stage}-${tag}-${seed}`);
  const log = join(dir!, `${name}-seed-${seed}`, 'live.decisions.jsonl');
  const job = await runBacktestJob({
    file,
    env: { WALLET_KEY: secret },
    data: join(dir!, `${name}-seed-${seed}`, 'rec'),
    outDir,
    verifyAgainst: log,
    cache: false,
  });
  return { job, report: join(outDir, 'report.json'), log };
}

const figures: HeldOutFigures[] = [];
for (const name of names.length ? names : ['live-sim', 'live-sim-alt']) {
  const fit = calibrate(fitSeeds.map((s) => join(dir, `${name}-seed-${s}`, 'journal.sqlite')));
  const stage1 = [];
  for (const s of fitSeeds) stage1.push(await backtest(name, s, 'fit1', modelBlockYaml(fit)));
  const stage2 = secondStage(
    stage1.map((b) => b.report),
    50,
    undefined,
    graduationsOf(fitSeeds.map((s) => join(dir, `${name}-seed-${s}`, 'rec'))),
  );
  const model = modelBlockYaml(fit, stage2);
  console.log(`${name}: extraSlippageBps ${stage2.extraSlippageBps}, graduated ${stage2.graduated?.extraSlippageBps ?? '-'}`);
  for (const seed of heldSeeds) {
    const { job, log } = await backtest(name, seed, 'held', model);
    const s = job.liveVsBacktest!.summary;
    const liveLog = readFileSync(log, 'utf8');
    const live = realised(liveLog);
    const bt = realised(job.result.decisionLog);
    figures.push({
      deployment: name,
      seed,
      pairedPct: s.pairedPct ?? 0,
      tradesRatio: bt.trades / live.trades,
      driftBps: s.drift.all?.medianAbsBps ?? Number.NaN,
      pnlRatio: Number(bt.pnlLamports) / Number(live.pnlLamports),
      note: '',
    });
    console.log(
      `${name} ${seed}: ${s.pairedFills}/${s.liveFills} paired; trades ${bt.trades} vs ${live.trades}; PnL ${Number(bt.pnlLamports) / 1e9} vs ${Number(live.pnlLamports) / 1e9}`,
    );
    console.log(
      `  unpaired: ${unpairedCauses(liveLog, job.result.decisionLog)
        .map((c) => `${c.cause} ${c.count}`)
        .join('; ')}`,
    );
    console.log(
      `  held longer: ${heldLonger(liveLog, job.result.decisionLog)
        .map((c) => `${c.reason} ${c.count}`)
        .join('; ')}`,
    );
  }
}
console.log(heldOutTable(figures));
