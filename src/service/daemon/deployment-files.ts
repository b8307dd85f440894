/**
 * The deployment files a daemon runs: `FILE|DIR...` arguments expanded (a directory means each
 * `*.yaml` / `*.yml` file directly in it, sorted), each read and validated. A file that fails
 * validation becomes a spec with its coded error (file:line in the message), never an exception:
 * the supervisor keeps the running version of that deployment.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ChainpilotError, describeError, isChainpilotError } from '../../core/index.js';
import { parseDeployment } from '../../config/index.js';
import type { DeploymentSpec } from './supervisor.js';

/** Expands `paths` into deployment files. Throws RUNTIME_DAEMON_NO_FILES when none is found. */
export function expandDeploymentPaths(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const p of paths) {
    const abs = resolve(p);
    let isDir: boolean;
    try {
      isDir = statSync(abs).isDirectory();
    } catch (e) {
      throw new ChainpilotError(
        'RUNTIME_DAEMON_NO_FILES',
        `cannot read ${p}: ${(e as NodeJS.ErrnoException).code ?? describeError(e)}; give deployment files or directories that exist`,
        { retry: 'not_retryable', context: { path: p } },
      );
    }
    if (isDir) {
      for (const f of readdirSync(abs)
        .filter((n) => /\.ya?ml$/.test(n))
        .sort())
        files.push(join(abs, f));
    } else files.push(abs);
  }
  const unique = [...new Set(files)];
  if (unique.length === 0) {
    throw new ChainpilotError('RUNTIME_DAEMON_NO_FILES', `no deployment files in ${paths.join(', ')}; give .yaml files or directories that hold them`, {
      retry: 'not_retryable',
    });
  }
  return unique;
}

/** Reads and validates each file; never throws for a bad file. */
export function readDeploymentSpecs(files: readonly string[], env?: Readonly<Record<string, string | undefined>>): DeploymentSpec[] {
  return files.map((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      return {
        file,
        hash: '',
        error: { code: 'CONFIG_UNREADABLE', message: `cannot read deployment file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}; check the path` },
      };
    }
    const hash = createHash('sha256').update(text).digest('hex');
    try {
      return { file, hash, loaded: parseDeployment(text, file, env ? { env } : {}) };
    } catch (e) {
      return { file, hash, error: isChainpilotError(e) ? { code: e.code, message: e.message } : { code: 'CONFIG_INVALID', message: describeError(e) } };
    }
  });
}
