/**
 * `chainpilot sweep DEPLOYMENT --data ... [--set PATH=V1,V2 ...] [--spec sweep.yaml] [--search grid|random|halving]
 * [--budget N] [--seed N] [--objective NAME] [--folds K] [--walk-forward 70/30] [--redis URL]`.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { performance } from 'node:perf_hooks';
import { isChainpilotError } from '../../core/errors.js';
import type { SearchMethod } from '../../research/backtest/search-methods.js';
import type { SweepAxis } from '../../research/backtest/sweep-grid.js';

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

function intOption(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

function searchOption(v: string): SearchMethod {
  if (v !== 'grid' && v !== 'random' && v !== 'halving') throw new InvalidArgumentError('expected grid, random or halving');
  return v;
}

function modeOption(v: string): 'rolling' | 'anchored' {
  if (v !== 'rolling' && v !== 'anchored') throw new InvalidArgumentError('expected rolling or anchored');
  return v;
}

function redisOption(v: string): string {
  if (!/^rediss?:\/\/./.test(v)) throw new InvalidArgumentError('expected a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379');
  return v;
}

interface SweepOpts {
  data: string[];
  set?: string[];
  spec?: string;
  search?: SearchMethod;
  budget?: number;
  seed?: number;
  objective?: string;
  metric?: string;
  minTrades?: number;
  folds?: number;
  walkForward?: string;
  walkForwardMode?: 'rolling' | 'anchored';
  workers?: number;
  redis?: string;
  queuePrefix?: string;
  out: string;
  cache: boolean;
}

export function registerSweep(program: Command): void {
  program
    .command('sweep')
    .description(
      "search a deployment's parameters over a recording (grid, random or successive halving, walk-forward folds), write sweep.json, sweep.csv and sweep.html",
    )
    .argument('<deployment>', 'deployment YAML file')
    .requiredOption('--data <path>', 'recording file, directory or glob (repeatable)', collect)
    .option(
      '--set <path=values>',
      "a parameter and its values, e.g. 'strategies[curve-momentum].params.milestonePct=40,50,60' (repeatable; default: the spaces the strategies declare)",
      collect,
    )
    .option('--spec <file>', 'sweep file: search, budget, seed, objective, minTrades, walkForward, space (options given here override it)')
    .option('--search <method>', 'grid (default), random or halving (successive halving)', searchOption)
    .option('--budget <n>', 'cells drawn by random and halving (default 27)', intOption)
    .option('--seed <n>', 'seed of the random draws (default 1)', intOption)
    .option('--objective <name>', 'netPnl, sharpe, calmar, profitFactor (default), returnPct, winRatePct, expectancySol, maxDrawdownPct, or PATH#EXPORT')
    .option('--metric <name>', 'the same as --objective (kept for old scripts)')
    .option('--min-trades <n>', 'cells with fewer closed trades rank last (default 5)', intOption)
    .option('--folds <k>', 'walk-forward folds: k out-of-sample windows after the in-sample share', intOption)
    .option('--walk-forward <in/out>', 'in-sample / out-of-sample shares, e.g. 70/30 (default 70/30 when --folds is given)')
    .option('--walk-forward-mode <mode>', 'rolling (default: a fixed in-sample length before each fold) or anchored (from the start)', modeOption)
    .option(
      '--workers <n>',
      'cells run at once: this thread and n-1 worker threads sharing its recording (default: every core; 0 or 1 = this thread only)',
      intOption,
    )
    .option('--redis <url>', 'put the cells on BullMQ at this Redis; `chainpilot worker --sweeps` processes run them', redisOption)
    .option('--queue-prefix <prefix>', 'key prefix of the sweep queue on Redis (default chainpilot)')
    .option('--out <dir>', 'output directory', './sweep-out')
    .option('--no-cache', 'parse the recording without its prepared cache (.chainpilot-cache next to the recording), and write none')
    .action(async (file: string, opts: SweepOpts) => {
      const [{ parseWalkForward, runSweep }, { parseSetOption }, { createProgress }, { sweepSilentRoomsLines }] = await Promise.all([
        import('../../research/backtest/run-sweep.js'),
        import('../../research/backtest/sweep-grid.js'),
        import('../progress.js'),
        import('../../research/report/silent-rooms.js'),
      ]);
      (await import('../cli-paths.js')).prepareDirOption('--out', opts.out);
      const progress = createProgress('sweep', 'cells');
      const t0 = performance.now();
      try {
        const axes: SweepAxis[] = (opts.set ?? []).map(parseSetOption);
        const objective = opts.objective ?? opts.metric;
        const r = await runSweep({
          file,
          data: opts.data,
          axes,
          outDir: opts.out,
          cache: opts.cache,
          ...(opts.spec !== undefined ? { spec: opts.spec } : {}),
          ...(opts.search !== undefined ? { search: opts.search } : {}),
          ...(opts.budget !== undefined ? { budget: opts.budget } : {}),
          ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
          ...(objective !== undefined ? { objective } : {}),
          ...(opts.minTrades !== undefined ? { minTrades: opts.minTrades } : {}),
          ...(opts.folds !== undefined ? { folds: opts.folds } : {}),
          ...(opts.walkForward ? { walkForwardPct: parseWalkForward(opts.walkForward) } : {}),
          ...(opts.walkForwardMode ? { walkForwardMode: opts.walkForwardMode } : {}),
          ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
          ...(opts.redis !== undefined ? { redisUrl: opts.redis } : {}),
          ...(opts.queuePrefix !== undefined ? { queuePrefix: opts.queuePrefix } : {}),
          onWarning: (line) => process.stderr.write(`${line}\n`),
          onCell: (done, total) => progress.update(done, total, `${done}/${total} cells`, done / Math.max(0.001, (performance.now() - t0) / 1000)),
        });
        progress.stop();
        const h = r.headline;
        process.stdout.write(
          `${h.outOfSample ? `out of sample (${r.folds.length} fold${r.folds.length === 1 ? '' : 's'}, selected in-sample by ${r.objective.name})` : `in sample only (no walk-forward), best by ${r.objective.name}`}: ${h.netPnlSol} SOL over ${h.trades} trades, ${h.foldsPositive}/${r.folds.length} fold(s) positive\n`,
        );
        for (const f of r.folds)
          process.stdout.write(
            `  fold ${f.n}: cell ${f.selected ?? 'none'} ${JSON.stringify(f.params ?? {})}  in-sample ${r.objective.name}=${String(f.inSampleScore ?? 'n/a')}  ${h.outOfSample ? 'out-of-sample' : 'whole window'} pnl=${f.result?.netPnlSol ?? 'n/a'} SOL trades=${f.result?.trades ?? 0}\n`,
          );
        for (const line of sweepSilentRoomsLines(r.cells)) process.stdout.write(`${line}\n`);
        process.stdout.write(`wrote ${opts.out}/sweep.json, sweep.csv and sweep.html\n`);
      } catch (e) {
        progress.stop();
        if (isChainpilotError(e)) {
          process.stderr.write(`chainpilot sweep: ${e.code}: ${e.message}\n`);
          process.exitCode = 1;
          return;
        }
        throw e;
      }
    });
}
