/** `chainpilot validate FILE`: checks a deployment and prints its effective config, secrets redacted. */
import type { Command } from 'commander';
import { errorHint } from '../print-error.js';

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check a deployment file and print the effective configuration (secrets redacted)')
    .argument('<file>', 'deployment YAML file')
    .action(async (file: string) => {
      const [{ validateDeploymentFile }, { guardProcessExit }] = await Promise.all([
        import('../../runtime/shell/validate-deployment.js'),
        import('../../runtime/shell/process-exit-guard.js'),
      ]);
      // Strategy modules are imported to check their parameters: they may not end the process.
      const restore = guardProcessExit();
      let r: Awaited<ReturnType<typeof validateDeploymentFile>>;
      try {
        r = await validateDeploymentFile(file);
      } finally {
        restore();
      }
      if (r.ok) {
        process.stdout.write(`# ${file} is valid. Effective configuration:\n${r.text}`);
      } else {
        process.stderr.write(`${r.text}\n`);
        if (r.code) process.stderr.write(`${errorHint(r.code)}\n`);
        process.exitCode = 1;
      }
    });
}
