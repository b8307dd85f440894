/** `chainpilot init [DIR]` and `chainpilot new strategy NAME`: a strategy project, and a strategy in it. */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function print(made: { files: readonly string[]; next: string }, where: string): void {
  process.stdout.write(`made in ${where}:\n${made.files.map((f) => `  ${f}\n`).join('')}next: ${made.next}\n`);
}

async function guarded(command: string, fn: () => Promise<void>): Promise<void> {
  const { isChainpilotError } = await import('../../core/errors.js');
  try {
    await fn();
  } catch (e) {
    if (!isChainpilotError(e)) throw e;
    process.stderr.write(`chainpilot ${command}: ${e.code}: ${e.message}\n`);
    process.exitCode = 1;
  }
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('make a strategy project that works offline: package.json, tsconfig, a strategy and its test, a paper deployment on the simulator, a README')
    .argument('[dir]', 'directory to make it in (created; default: here)', '.')
    .action(async (dir: string) => {
      await guarded('init', async () => {
        const { initProject } = await import('../scaffold/write-project.js');
        const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { version: string };
        print(initProject(dir, pkg.version), dir);
      });
    });
  program
    .command('new')
    .description('add to a project made by chainpilot init')
    .command('strategy')
    .description('add strategies/NAME.ts from the template, with a passing test')
    .argument('<name>', 'strategy id: lower-case letters, digits and dashes')
    .action(async (name: string) => {
      await guarded('new strategy', async () => {
        const { newStrategy } = await import('../scaffold/write-project.js');
        print(newStrategy('.', name), '.');
      });
    });
}
