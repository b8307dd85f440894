/** `chainpilot sweep DEPLOYMENT --data ... --set PATH=V1,V2 [--set ...] [--metric M] [--walk-forward 70/30]`. */
import { InvalidArgumentError, type Command } from 'commander';
import { isChainpilotError } from '../../core/errors.js';
import type { SweepMetric } from '../../research/backtest/run-sweep.js';
import type { SweepAxis } from '../../research/backtest/sweep-grid.js';

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

function intOption(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

export function registerSweep(program: Command): void {
  program
    .command('sweep')
    .description('backtest a grid of parameter values on worker threads, rank the cells, write sweep.json, sweep.csv and sweep.html')
    .argument('<deployment>', 'deployment YAML file')
    .requiredOption('--data <path>', 'recording file, directory or glob (repeatable)', collect)
    .requiredOption('--set <path=values>', "a parameter and its values, e.g. 'strategies[curve-momentum].params.milestonePct=40,50,60' (repeatable)", collect)
    .option('--metric <name>', 'ranking metric (profitFactor by default; see docs/backtesting.md for the list)', 'profitFactor')
    .option('--min-trades <n>', 'cells with fewer closed trades rank last', intOption, 5)
    .option('--workers <n>', 'worker threads (default: every core; 0 = in this thread)', intOption)
    .option('--walk-forward <in/out>', 'split the window, e.g. 70/30, and report in-sample and out-of-sample per cell')
    .option('--out <dir>', 'output directory', './sweep-out')
    .option('--no-cache', 'parse the recording without its prepared cache (.chainpilot-cache next to the recording), and write none')
    .action(
      async (
        file: string,
        opts: { data: string[]; set: string[]; metric: string; minTrades: number; workers?: number; walkForward?: string; out: string; cache: boolean },
      ) => {
        const [{ parseWalkForward, runSweep, SWEEP_METRICS }, { parseSetOption }, { createProgress }, { sweepSilentRoomsLines }] = await Promise.all([
          import('../../research/backtest/run-sweep.js'),
          import('../../research/backtest/sweep-grid.js'),
          import('../progress.js'),
          import('../../research/report/silent-rooms.js'),
        ]);
        (await import('../cli-paths.js')).prepareDirOption('--out', opts.out);
        if (!(SWEEP_METRICS as readonly string[]).includes(opts.metric))
          throw new InvalidArgumentError(`--metric: expected one of ${SWEEP_METRICS.join(', ')}`);
        const progress = createProgress('sweep', 'cells');
        try {
          const axes: SweepAxis[] = opts.set.map(parseSetOption);
          const r = await runSweep({
            file,
            data: opts.data,
            axes,
            outDir: opts.out,
            metric: opts.metric as SweepMetric,
            minTrades: opts.minTrades,
            cache: opts.cache,
            ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
            ...(opts.walkForward ? { walkForwardPct: parseWalkForward(opts.walkForward) } : {}),
            onCell: (done, total) => progress.update(done, total, `${done}/${total} cells`, 0),
          });
          progress.stop();
          const w = r.windows[0]!;
          process.stdout.write(`best cells by ${r.metric} (${w}):\n`);
          for (const idx of r.ranking.slice(0, 5)) {
            const c = r.cells.find((x) => x.index === idx)!;
            const m = c.windows[w]!;
            const oos = r.windows[1] ? c.windows[r.windows[1]] : undefined;
            process.stdout.write(
              `  ${JSON.stringify(c.params)}  ${r.metric}=${String(m[r.metric as keyof typeof m] ?? 'n/a')}  trades=${m.trades}  pnl=${m.netPnlSol} SOL${oos ? `  | out-of-sample pnl=${oos.netPnlSol} SOL trades=${oos.trades}` : ''}\n`,
            );
          }
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
      },
    );
}
