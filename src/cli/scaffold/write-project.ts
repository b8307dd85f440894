/**
 * `chainpilot init DIR` and `chainpilot new strategy NAME`: write the files of templates.ts, never
 * over an existing file, and say what was made and the next command.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { badPath } from '../cli-paths.js';
import { deploymentFile, packageFile, readmeFile, strategyFile, strategyTestFile, TSCONFIG } from './templates.js';

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

export interface Scaffolded {
  /** The files written, relative to the project directory. */
  readonly files: readonly string[];
  /** The command to run next. */
  readonly next: string;
}

function checkName(option: string, name: string): void {
  if (!NAME.test(name)) throw badPath(option, name, 'a name is lower-case letters, digits and dashes, starting with a letter (such as dip-buyer)');
}

function writeAll(dir: string, files: Readonly<Record<string, string>>, option: string): string[] {
  const taken = Object.keys(files).filter((f) => existsSync(join(dir, f)));
  if (taken.length > 0) throw badPath(option, dir, `it already holds ${taken.join(', ')}; nothing was written (choose another name or directory)`);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), text, { flag: 'wx' });
  }
  return Object.keys(files);
}

/** A strategy project in `dir` (created): package.json, tsconfig, a strategy and its test, a paper deployment, a README. */
export function initProject(dir: string, chainpilotVersion: string): Scaffolded {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '');
  const project = NAME.test(name) ? name : 'my-strategies';
  const id = 'dip-buyer';
  const files = writeAll(
    dir,
    {
      'package.json': packageFile(project, chainpilotVersion),
      'tsconfig.json': TSCONFIG,
      [`strategies/${id}.ts`]: strategyFile(id),
      [`strategies/${id}.test.ts`]: strategyTestFile(id),
      'deploy.yaml': deploymentFile(project, id),
      'README.md': readmeFile(project),
    },
    'init',
  );
  const cd = relative(process.cwd(), resolve(dir)) || '.';
  return { files, next: `cd ${cd} && npm install && npm test && npx chainpilot paper deploy.yaml --duration 60s` };
}

/** A strategy `name` and its test under `dir`/strategies (a project made by init). */
export function newStrategy(dir: string, name: string): Scaffolded {
  checkName('new strategy', name);
  if (!existsSync(join(dir, 'package.json')) || !readFileSync(join(dir, 'package.json'), 'utf8').includes('"chainpilot"'))
    throw badPath('new strategy', resolve(dir), 'it is not a chainpilot project (no package.json depending on chainpilot); run chainpilot init DIR first');
  const files = writeAll(dir, { [`strategies/${name}.ts`]: strategyFile(name), [`strategies/${name}.test.ts`]: strategyTestFile(name) }, 'new strategy');
  return { files, next: `npm test, then add "- use: ./strategies/${name}.ts" under strategies: in deploy.yaml` };
}
