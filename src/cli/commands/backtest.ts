/** `chainpilot backtest DEPLOYMENT --data FILE|DIR|GLOB [--from T --to T] [--out DIR] [--verify-against DECISIONS.jsonl]`. */
import { InvalidArgumentError, type Command } from 'commander';
import { isChainpilotError } from '../../core/errors.js';
import { durationOption, joinLatencyOption, seedOption, setOption, SET_HELP } from '../options.js';

/** `--from 2026-01-01T00:00:00Z` or Unix milliseconds. */
export function timeOption(v: string): number {
  const n = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('expected an ISO time such as 2026-01-01T06:00:00Z, or Unix milliseconds');
  return n;
}

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

export function registerBacktest(program: Command): void {
  program
    .command('backtest')
    .description('replay a recording through a deployment (same engine, paper executor, simulated clock) and write report.json and report.html')
    .argument('<deployment>', 'deployment YAML file')
    .requiredOption('--data <path>', 'recording file, directory or glob (repeatable)', collect)
    .option('--from <time>', 'replay from this time (ISO or Unix ms)', timeOption)
    .option('--to <time>', 'replay up to this time (ISO or Unix ms)', timeOption)
    .option('--out <dir>', 'output directory', './backtest-out')
    .option('--seed <n>', "engine seed (default: the recording's)", seedOption)
    .option('--set <path=value>', SET_HELP, setOption)
    .option('--data-miss <policy>', 'ctx.data look-up with no recorded answer: latest (newest earlier answer) or error', 'latest')
    .option('--sample <time>', 'equity sampling interval', durationOption, 60_000)
    .option(
      '--verify-against <file>',
      'decision log (paper or live) to compare with: names the first different line (exit 1) and pairs every intent to report the drift',
    )
    .option(
      '--join-latency <time>',
      "from a join of a room nobody held to its first frame (a live join's round trip); default 200ms on a download, 0ms on a recording of a run",
      joinLatencyOption,
    )
    .option('--no-cache', 'parse the recording without its prepared cache (.chainpilot-cache next to the recording), and write none')
    .action(
      async (
        file: string,
        opts: {
          data: string[];
          from?: number;
          to?: number;
          out: string;
          seed?: number;
          set?: string[];
          dataMiss: string;
          sample: number;
          verifyAgainst?: string;
          joinLatency?: number;
          cache: boolean;
        },
      ) => {
        const [{ runBacktestJob }, { formatReportSummary }, { createProgress }, { silentRoomsLines }, { formatDriftSummary }, { parseSetAssignment }] =
          await Promise.all([
            import('../../research/backtest/backtest-job.js'),
            import('../../research/report/summary-table.js'),
            import('../progress.js'),
            import('../../research/report/silent-rooms.js'),
            import('../../research/backtest/pair-fills.js'),
            import('../../config/overrides.js'),
          ]);
        (await import('../cli-paths.js')).prepareDirOption('--out', opts.out);
        if (opts.dataMiss !== 'latest' && opts.dataMiss !== 'error') throw new InvalidArgumentError('--data-miss: expected latest or error');
        const progress = createProgress('backtest');
        try {
          const r = await runBacktestJob({
            file,
            data: opts.data,
            outDir: opts.out,
            dataMiss: opts.dataMiss,
            sampleMs: opts.sample,
            cache: opts.cache,
            ...(opts.from !== undefined ? { fromMs: opts.from } : {}),
            ...(opts.to !== undefined ? { toMs: opts.to } : {}),
            ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
            ...(opts.set ? { set: opts.set.map((s) => parseSetAssignment(s)) } : {}),
            ...(opts.verifyAgainst ? { verifyAgainst: opts.verifyAgainst } : {}),
            ...(opts.joinLatency !== undefined ? { joinLatencyMs: opts.joinLatency } : {}),
            onProgress: (p) => progress.update(p.lines, p.totalLines, new Date(p.at).toISOString(), p.linesPerSec),
          });
          progress.stop();
          if (r.cache.status === 'rebuilt' || r.cache.status === 'unwritable')
            process.stderr.write(`recording cache ${r.cache.path}: ${r.cache.status}: ${r.cache.reason ?? ''}\n`);
          process.stdout.write(`${formatReportSummary(r.report)}\n\nwrote ${r.files.report}, ${r.files.html} and ${r.files.decisions}\n`);
          for (const line of silentRoomsLines(r.report.run.silentRooms)) process.stdout.write(`${line}\n`);
          if (opts.verifyAgainst) {
            if (r.divergence) {
              const dv = r.divergence;
              process.stdout.write('\n');
              process.stdout.write(
                `BACKTEST_DIVERGED: the decision log departs from ${opts.verifyAgainst} at line ${dv.line}\n  expected: ${dv.expected ?? '(end of log)'}\n  backtest: ${dv.actual ?? '(end of log)'}\n`,
              );
              process.exitCode = 1;
            } else process.stdout.write(`\nverified: the decision log equals ${opts.verifyAgainst} byte for byte\n`);
            if (r.liveVsBacktest) process.stdout.write(`\n${formatDriftSummary(r.liveVsBacktest.summary)}\n`);
          }
        } catch (e) {
          progress.stop();
          if (isChainpilotError(e)) {
            process.stderr.write(`chainpilot backtest: ${e.code}: ${e.message}\n`);
            process.exitCode = 1;
            return;
          }
          throw e;
        }
      },
    );
}
