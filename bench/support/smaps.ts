/**
 * RSS of a process split by kind of mapping, from `/proc/PID/smaps` (Linux): where native memory
 * goes when the JS heap does not explain RSS (docs/daemon.md, "Memory over time").
 *
 * - `mainArena`: `[heap]`, glibc's main malloc arena (the main thread's `malloc`, brk);
 * - `threadArenas`: anonymous mappings that start on a 64 MiB boundary, glibc's per-thread arenas
 *   (each a 64 MiB reservation made readable as it grows; a V8 or mmap region may by chance start
 *   on such a boundary too, so this is an upper bound), with their count;
 * - `otherAnon`: every other anonymous mapping: V8's heap pages (of the main thread and each worker),
 *   large `malloc` blocks served by `mmap`, thread stacks;
 * - `sqliteShm`, `sqliteWal`, `sqliteDb`: file mappings of `*-shm`, `*-wal` and `*.db` files (SQLite
 *   maps the WAL index `-shm`; the others only with `mmap_size`), with the count of `-shm` mappings;
 * - `files`: every other file mapping (the node binary, shared libraries, native addons).
 */
import { readFileSync } from 'node:fs';

export interface SmapsBreakdown {
  readonly mainArena: number;
  readonly threadArenas: number;
  readonly threadArenaCount: number;
  readonly otherAnon: number;
  readonly sqliteShm: number;
  readonly shmMappings: number;
  readonly sqliteWal: number;
  readonly sqliteDb: number;
  readonly files: number;
  readonly stack: number;
  /** The sum of every mapping's Rss (equals VmRSS up to rounding). */
  readonly total: number;
}

const ARENA_ALIGN = 64n * 1024n * 1024n;
const HEADER = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \d+\s*(.*)$/;

/** Reads `/proc/PID/smaps` and sums Rss per kind (MB). */
export function smapsBreakdown(pid: number): SmapsBreakdown {
  const sums = {
    mainArena: 0,
    threadArenas: 0,
    threadArenaCount: 0,
    otherAnon: 0,
    sqliteShm: 0,
    shmMappings: 0,
    sqliteWal: 0,
    sqliteDb: 0,
    files: 0,
    stack: 0,
  };
  let kind: keyof typeof sums = 'otherAnon';
  let total = 0;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const h = HEADER.exec(line);
    if (h) {
      const start = BigInt(`0x${h[1] ?? '0'}`);
      const path = (h[4] ?? '').trim();
      if (path === '[heap]') kind = 'mainArena';
      else if (path === '[stack]') kind = 'stack';
      else if (path.endsWith('-shm')) {
        kind = 'sqliteShm';
        sums.shmMappings++;
      } else if (path.endsWith('-wal')) kind = 'sqliteWal';
      else if (path.endsWith('.db')) kind = 'sqliteDb';
      else if (path.startsWith('/')) kind = 'files';
      else if (start % ARENA_ALIGN === 0n && h[3]?.startsWith('rw') === true) {
        kind = 'threadArenas';
        sums.threadArenaCount++;
      } else kind = 'otherAnon';
      continue;
    }
    if (line.startsWith('Rss:')) {
      const kb = Number(/Rss:\s+(\d+)/.exec(line)?.[1] ?? 0);
      sums[kind] += kb / 1024;
      total += kb / 1024;
    }
  }
  return { ...sums, total };
}

/** One line for a log: MB per kind, rounded. */
export function formatSmaps(s: SmapsBreakdown): string {
  const mb = (n: number): string => n.toFixed(0);
  return (
    `[heap] ${mb(s.mainArena)}, thread arenas ${mb(s.threadArenas)} (${s.threadArenaCount}), other anon ${mb(s.otherAnon)}, ` +
    `-shm ${mb(s.sqliteShm)} (${s.shmMappings} maps), -wal ${mb(s.sqliteWal)}, .db ${mb(s.sqliteDb)}, files ${mb(s.files)}, stack ${mb(s.stack)} MB`
  );
}
