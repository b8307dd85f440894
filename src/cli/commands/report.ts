/** `chainpilot report REPORT.json [--out FILE]`: rebuilds the HTML report from a report.json. */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';

export function registerReport(program: Command): void {
  program
    .command('report')
    .description("rebuild report.html from a backtest's report.json")
    .argument('<report>', 'report.json written by chainpilot backtest')
    .option('--out <file>', 'HTML file to write (default: report.html next to the JSON)')
    .action(async (file: string, opts: { out?: string }) => {
      const { rebuildReportHtml } = await import('../../research/backtest/rebuild-report.js');
      const { checkOutFileOption, pathFailure } = await import('../cli-paths.js');
      const out = opts.out ?? join(dirname(file), 'report.html');
      let json: string;
      try {
        json = readFileSync(file, 'utf8');
      } catch (e) {
        throw pathFailure('<report>', file, e, true);
      }
      checkOutFileOption('--out', out);
      const r = rebuildReportHtml(json, file);
      try {
        writeFileSync(out, r);
      } catch (e) {
        throw pathFailure('--out', out, e);
      }
      process.stdout.write(`wrote ${out}\n`);
    });
}
