/**
 * Creates a directory and its parents one level at a time. Node's `mkdirSync(dir, { recursive:
 * true })` never returns for some paths (under /proc it spins forever: this is how an unwritable
 * decision log used to hang the run), so the runtime creates each missing level itself and lets
 * the first failure throw.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Ensures `dir` exists; throws the `mkdir` error of the first level that cannot be created. New levels get `mode` when given. */
export function ensureDir(dir: string, mode?: number): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    try {
      if (statSync(at).isDirectory()) break;
      // eslint-disable-next-line no-restricted-syntax -- an errno-style error like the ones mkdirSync throws; callers handle fs errors
      throw Object.assign(new Error(`${at} exists and is not a directory`), { code: 'ENOTDIR' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const d of missing.reverse()) mkdirSync(d, mode === undefined ? undefined : { mode });
}
