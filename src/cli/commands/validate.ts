/** `chainpilot validate FILE`: checks a deployment and prints its effective config, secrets redacted. */
import type { Command } from 'commander';
import { errorHint } from '../print-error.js';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check a deployment file and print the effective configuration (secrets redacted)')
    .argument('<file>', 'deployment YAML file')
    .action(async (file: string) => {
      const { validateDeploymentFile } = await import('../../runtime/validate-deployment.js');
      const r = await validateDeploymentFile(file);
      if (r.ok) {
        process.stdout.write(`# ${file} is valid. Effective configuration:\n${r.text}`);
      } else {
        process.stderr.write(`${r.text}\n`);
        if (r.code) process.stderr.write(`${errorHint(r.code)}\n`);
        process.exitCode = 1;
      }
    });
}
