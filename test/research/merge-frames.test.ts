/** The download's k-way merge: time order across tokens, ties in selection order, lines cut across read chunks intact. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeFrameFiles, writeTokenFrames } from '../../src/research/download/merge-frames.js';
import type { RebuiltFrame } from '../../src/research/download/rebuild-frames.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-merge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('merging the frames of many tokens', () => {
  it('writes every line once in the order of a stable sort by time over the tokens in selection order', async () => {
    // three tokens, thousands of frames each with long payloads: the files span many 256 KiB reads
    const tokens: RebuiltFrame[][] = [0, 1, 2].map((k) =>
      Array.from({ length: 3000 }, (_, i) => ({
        t: Math.floor((i * (k + 2)) / 3),
        room: `price:token:T${k}`,
        data: { i, pad: 'x'.repeat(100 + ((i * 7) % 50)) },
      })),
    );
    const files = tokens.map((frames, k) => {
      const f = join(dir, `frames-${k}.tsv`);
      writeTokenFrames(f, frames);
      return f;
    });
    const out: string[] = [];
    let drains = 0;
    const n = await mergeFrameFiles(
      files,
      (line) => out.push(line),
      () => {
        drains++;
        return Promise.resolve();
      },
    );
    const expected = tokens
      .flat()
      .sort((a, b) => a.t - b.t)
      .map((f) => `{"t":${f.t},"f":${JSON.stringify({ type: 'message', room: f.room, data: f.data })}}\n`);
    expect(n).toBe(9000);
    expect(out).toEqual(expected);
    expect(drains).toBe(2);
  });
});
