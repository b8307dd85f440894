/** `chainpilot calibrate JOURNAL_OR_DECISION_LOG... [--out FILE] [--slot-ms N] [--against REPORT.json... [--data REC...] [--used-extra-bps N] [--pool-fee-bps N]]`: fits `paper.model` from live runs. */
import { InvalidArgumentError, type Command } from 'commander';
import { isChainpilotError } from '../../core/errors.js';

export function registerCalibrate(program: Command): void {
  program
    .command('calibrate')
    .description("fit the paper fill model (paper.model) from live runs' decision logs or journals, with the fit's uncertainty")
    .argument('<files...>', 'live decision logs (.jsonl) or journals (SQLite, store.path of a live run)')
    .option('--out <file>', 'write the paper.model block (YAML) here as well as to stdout')
    .option(
      '--slot-ms <n>',
      "the chain's slot time in ms (default 400, the simulator's and Solana's): a journal's landing slots give each latency to the slot's start",
      (v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 50 || n > 5_000) throw new InvalidArgumentError('an integer from 50 to 5000 (ms)');
        return n;
      },
    )
    .option(
      '--against <report...>',
      "second stage: report.json of backtests of these live runs' recordings, run with --verify-against; adds the fitted extraSlippageBps to the block",
    )
    .option(
      '--data <recording...>',
      'with --against: the recordings those backtests replayed (folders or files); fills in graduated pools get their own graduatedExtraSlippageBps',
    )
    .option('--used-extra-bps <n>', 'the extraSlippageBps those backtests used (default 50, the default of paper.extraSlippageBps)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < -5_000 || n > 10_000) throw new InvalidArgumentError('an integer from -5000 to 10000 (bps)');
      return n;
    })
    .option(
      '--pool-fee-bps <n>',
      "the deployment's paper.defaultPoolFeeBps (default 100): the fitted extraSlippageBps stays at or above minus it, so paper never beats the pool",
      (v: string) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0 || n > 10_000) throw new InvalidArgumentError('an integer from 0 to 10000 (bps)');
        return n;
      },
    )
    .action(
      async (files: string[], opts: { out?: string; slotMs?: number; against?: string[]; data?: string[]; usedExtraBps?: number; poolFeeBps?: number }) => {
        const [{ calibrate, modelBlockYaml, secondStage }, { graduationsOf }, { writeFileSync }] = await Promise.all([
          import('../../research/calibrate/calibrate.js'),
          import('../../research/calibrate/graduations.js'),
          import('node:fs'),
        ]);
        try {
          if (opts.data && !opts.against) {
            process.stderr.write('chainpilot calibrate: --data names the recordings of the --against backtests; give --against REPORT.json as well\n');
            process.exitCode = 1;
            return;
          }
          const graduations = opts.data ? graduationsOf(opts.data) : undefined;
          const stage2 = opts.against ? secondStage(opts.against, opts.usedExtraBps ?? 50, opts.poolFeeBps, graduations) : undefined;
          const yaml = modelBlockYaml(calibrate(files, opts.slotMs), stage2);
          process.stdout.write(yaml);
          if (opts.out) {
            writeFileSync(opts.out, yaml);
            process.stderr.write(`wrote ${opts.out}\n`);
          }
        } catch (e) {
          if (isChainpilotError(e)) {
            process.stderr.write(`chainpilot calibrate: ${e.code}: ${e.message}\n`);
            process.exitCode = 1;
            return;
          }
          throw e;
        }
      },
    );
}
