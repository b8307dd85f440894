/** `chainpilot calibrate JOURNAL_OR_DECISION_LOG... [--out FILE]`: fits `paper.model` from live runs. */
import type { Command } from 'commander';
import { isChainpilotError } from '../../core/errors.js';

export function registerCalibrate(program: Command): void {
  program
    .command('calibrate')
    .description("fit the paper fill model (paper.model) from live runs' decision logs or journals, with the fit's uncertainty")
    .argument('<files...>', 'live decision logs (.jsonl) or journals (SQLite, store.path of a live run)')
    .option('--out <file>', 'write the paper.model block (YAML) here as well as to stdout')
    .action(async (files: string[], opts: { out?: string }) => {
      const [{ calibrate, modelBlockYaml }, { writeFileSync }] = await Promise.all([import('../../research/calibrate/calibrate.js'), import('node:fs')]);
      try {
        const yaml = modelBlockYaml(calibrate(files));
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
    });
}
