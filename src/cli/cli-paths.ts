/**
 * Paths given on the command line, checked before anything uses them: an output directory is
 * created level by level (never with `mkdir -p`, which spins forever under /proc), a file to write
 * needs an existing directory to go in, a directory to read must be one. Each refusal is
 * CLI_BAD_PATH naming the option, the path and the reason. Imported by command actions when they
 * run (never while the commands register).
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ChainpilotError } from '../core/errors.js';
import { ensureDir } from '../runtime/store/ensure-dir.js';

/** The error of an unusable path: `option PATH cannot be used: why`. */
export function badPath(option: string, path: string, why: string): ChainpilotError {
  return new ChainpilotError('CLI_BAD_PATH', `${option} ${path} cannot be used: ${why}`, { retry: 'not_retryable', context: { option, path } });
}

const reason = (e: unknown, reading = false): string => {
  const err = e as NodeJS.ErrnoException;
  const at = typeof err.path === 'string' ? ` at ${err.path}` : '';
  switch (err.code) {
    case 'ENOENT':
      return reading ? 'it does not exist' : `nothing can be created${at} (the file system refuses new entries there)`;
    case 'EISDIR':
      return 'it is a directory, not a file';
    case 'EACCES':
    case 'EPERM':
      return `permission denied${at}`;
    case 'EROFS':
      return `read-only file system${at}`;
    case 'ENOTDIR':
      return `a part of the path is not a directory${at}`;
    default:
      return `${err.code ?? 'error'}${at}`;
  }
};

/** Creates the directory `dir` (and its missing parents) for `option`; returns its absolute path. */
export function prepareDirOption(option: string, dir: string, mode?: number): string {
  if (dir.trim() === '') throw badPath(option, JSON.stringify(dir), 'an empty path');
  const abs = resolve(dir);
  try {
    ensureDir(abs, mode);
  } catch (e) {
    throw badPath(option, dir, reason(e));
  }
  return abs;
}

/** Checks that the file `file` of `option` can be created: its directory exists and is a directory. */
export function checkOutFileOption(option: string, file: string): string {
  if (file.trim() === '') throw badPath(option, JSON.stringify(file), 'an empty path');
  const abs = resolve(file);
  const dir = dirname(abs);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (e) {
    throw badPath(option, file, `its directory ${dir} ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${reason(e)})`}`);
  }
  if (!isDir) throw badPath(option, file, `${dir} is not a directory`);
  return abs;
}

/** Checks that `dir` of `option` is an existing directory (one to read from). */
export function checkInDirOption(option: string, dir: string): string {
  const abs = resolve(dir);
  let isDir: boolean;
  try {
    isDir = statSync(abs).isDirectory();
  } catch (e) {
    throw badPath(option, dir, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : reason(e));
  }
  if (!isDir) throw badPath(option, dir, 'it is not a directory');
  return abs;
}

/** The coded form of an fs error met while writing (or `reading`) `path` for `option`; anything else passes unchanged. */
export function pathFailure(option: string, path: string, e: unknown, reading = false): unknown {
  return e instanceof ChainpilotError || typeof (e as NodeJS.ErrnoException | undefined)?.code !== 'string' ? e : badPath(option, path, reason(e, reading));
}
