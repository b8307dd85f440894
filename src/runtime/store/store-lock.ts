/**
 * One process per store: a lock file next to the store (`<store>.lock`) created exclusively
 * (`O_CREAT | O_EXCL`) and holding the owner's pid. A second process is refused with the holder's
 * pid. A lock left by a dead process (crash, SIGKILL) is taken over safely: the stale file is first
 * renamed to a name of our own (only one contender can win that rename), its pid re-checked, and
 * only then removed, so two starting processes can never both believe they hold the store.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { ChainpilotError } from '../../core/index.js';

export interface StoreLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

export interface StoreLockOptions {
  /** Pid written in the lock (default: this process). */
  readonly pid?: number;
  /** True when `pid` is a running process (default: `process.kill(pid, 0)`). */
  readonly isAlive?: (pid: number) => boolean;
  /** A lock file still empty after this long is stale (its writer died between create and write). */
  readonly emptyGraceMs?: number;
}

/** True when a process with `pid` exists (EPERM: it exists but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock of the store at `storePath`; throws RUNTIME_STORE_LOCKED with the holder's pid. */
export function acquireStoreLock(storePath: string, o: StoreLockOptions = {}): StoreLock {
  const path = `${storePath}.lock`;
  const pid = o.pid ?? process.pid;
  const alive = o.isAlive ?? processAlive;
  const grace = o.emptyGraceMs ?? 5_000;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path, pid)) return held(path, pid);
    const holder = readPid(path);
    if (holder === 'missing') continue;
    if (holder === 'empty') {
      if (ageMs(path) < grace) throw locked(storePath, undefined);
    } else if (holder === pid || alive(holder)) {
      throw locked(storePath, holder);
    }
    takeOverStale(path, holder, alive);
  }
  throw locked(storePath, undefined);
}

function held(path: string, pid: number): StoreLock {
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      if (readPid(path) === pid) unlinkSync(path);
    },
  };
}

function tryCreate(path: string, pid: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, `${pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readPid(path: string): number | 'missing' | 'empty' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw e;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : 'empty';
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Moves a stale lock aside; puts it back when it turns out to be a live holder's (a contender took over first). */
function takeOverStale(path: string, stale: number | 'empty', alive: (pid: number) => boolean): void {
  const aside = `${path}.stale-${randomBytes(6).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else moved it: retry
    throw e;
  }
  const moved = readPid(aside);
  if (moved !== stale && typeof moved === 'number' && alive(moved)) {
    // We moved a fresh lock of a live contender: restore it unless a third process already re-created one.
    try {
      linkSync(aside, path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  unlinkSync(aside);
}

function locked(storePath: string, pid: number | undefined): ChainpilotError {
  const who = pid === undefined ? 'another process (starting up)' : `process ${pid}`;
  return new ChainpilotError('RUNTIME_STORE_LOCKED', `store ${storePath} is held by ${who}; stop it first, or give this deployment its own store.path`, {
    retry: 'not_retryable',
    context: { store: storePath, ...(pid === undefined ? {} : { holderPid: pid }) },
  });
}
