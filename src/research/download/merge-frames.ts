/**
 * The frames of many tokens merged by time without holding them all in memory: each token's frames
 * (already in time order) go to a file of their own as recording lines, then a k-way merge reads
 * the files a chunk at a time and hands the lines to the writer in time order. Ties keep the
 * selection order of the tokens, then each token's own order (the order a stable sort gives).
 */
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { frameLine } from '../replay/recording-format.js';
import type { RebuiltFrame } from './rebuild-frames.js';

/** Writes one token's frames, in order, as `T<tab>LINE` lines. */
export function writeTokenFrames(path: string, frames: readonly RebuiltFrame[]): void {
  writeFileSync(
    path,
    frames.map((f) => `${f.t}\t${frameLine(f.t, undefined, JSON.stringify({ type: 'message', room: f.room, data: f.data }), true)}`).join(''),
  );
}

interface Reader {
  readonly index: number;
  next(): { t: number; line: string } | undefined;
  close(): void;
}

const CHUNK = 256 * 1024;

function openReader(path: string, index: number): Reader {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(CHUNK);
  let rest = '';
  let lines: string[] = [];
  let at = 0;
  let eof = false;
  return {
    index,
    next() {
      while (at >= lines.length) {
        if (eof) return undefined;
        const n = readSync(fd, buf, 0, CHUNK, null);
        if (n === 0) {
          eof = true;
          if (rest.length > 0) {
            lines = [rest];
            at = 0;
            rest = '';
            continue;
          }
          return undefined;
        }
        const text = rest + buf.toString('utf8', 0, n);
        const cut = text.lastIndexOf('\n');
        lines = cut < 0 ? [] : text.slice(0, cut).split('\n');
        rest = cut < 0 ? text : text.slice(cut + 1);
        at = 0;
      }
      const l = lines[at++]!;
      const tab = l.indexOf('\t');
      return { t: Number(l.slice(0, tab)), line: `${l.slice(tab + 1)}\n` };
    },
    close: () => closeSync(fd),
  };
}

interface Head {
  readonly t: number;
  readonly line: string;
  readonly reader: Reader;
}

const before = (a: Head, b: Head): boolean => a.t < b.t || (a.t === b.t && a.reader.index < b.reader.index);

/** Merges the token files (in selection order) by time into `write`; awaits `drained` every 4096 lines. Returns the lines written. */
export async function mergeFrameFiles(paths: readonly string[], write: (line: string, t: number) => void, drained: () => Promise<void>): Promise<number> {
  const readers = paths.map(openReader);
  const heap: Head[] = [];
  const push = (h: Head): void => {
    heap.push(h);
    for (let i = heap.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!before(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const pop = (): Head => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  };
  let written = 0;
  try {
    for (const reader of readers) {
      const first = reader.next();
      if (first) push({ ...first, reader });
    }
    while (heap.length > 0) {
      const h = pop();
      write(h.line, h.t);
      if (++written % 4096 === 0) await drained();
      const n = h.reader.next();
      if (n) push({ ...n, reader: h.reader });
    }
  } finally {
    for (const r of readers) r.close();
  }
  return written;
}
