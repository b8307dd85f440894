/**
 * bin/chainpilot.js in a source checkout runs the compiled dist/ only while it is at least as new
 * as everything under src/; otherwise the TypeScript sources through tsx, so an edited checkout
 * never runs stale code. Checked on a small checkout in a temp dir (the real bin file, a src/
 * entry that prints "source", a dist/ entry that prints "compiled"), with the mtimes set
 * explicitly so that no test depends on the clock's resolution.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
/** The build's time; sources are set older (fresh) or newer (edited) than it. */
const BUILT = new Date('2026-01-02T00:00:00Z');
const BEFORE = new Date('2026-01-01T00:00:00Z');
const AFTER = new Date('2026-01-03T00:00:00Z');

let root: string;

function write(rel: string, text: string, at: Date): void {
  const path = join(root, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, at, at);
}

/** Sets the mtime of `rel` (a file or a directory). */
function touch(rel: string, at: Date): void {
  utimesSync(join(root, rel), at, at);
}

/** Which entry the command ran: `compiled` or `source`. */
function ran(): string {
  const r = spawnSync(process.execPath, [join(root, 'bin/chainpilot.js')], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.trim();
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chainpilot-bin-'));
  mkdirSync(join(root, 'bin'));
  copyFileSync(join(repo, 'bin/chainpilot.js'), join(root, 'bin/chainpilot.js'));
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules')); // tsx, for the source run
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  write('tsconfig.json', '{}\n', BEFORE);
  write('src/cli/entry.ts', "const where: string = 'source';\nprocess.stdout.write(`${where}\\n`);\n", BEFORE);
  write('src/engine/deep/nested/rule.ts', 'export const rule = 1;\n', BEFORE);
  for (const dir of ['src/engine/deep/nested', 'src/engine/deep', 'src/engine', 'src/cli', 'src']) touch(dir, BEFORE);
  write('dist/cli/entry.js', "process.stdout.write('compiled\\n');\n", BUILT);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('bin/chainpilot.js in a source checkout', () => {
  it('runs dist/ when it is newer than every file and directory under src/', () => {
    expect(ran()).toBe('compiled');
  });

  it('runs the sources when a file deep under src/ was edited in place after the build', () => {
    touch('src/engine/deep/nested/rule.ts', AFTER); // an in-place write changes the file's mtime only
    expect(ran()).toBe('source');
  });

  it('runs the sources when a file was added, removed or renamed under src/ after the build', () => {
    write('src/engine/deep/nested/added.ts', 'export {};\n', BEFORE); // an old file copied in: only its directory is new
    touch('src/engine/deep/nested', AFTER);
    expect(ran()).toBe('source');

    unlinkSync(join(root, 'src/engine/deep/nested/added.ts')); // removed: the stale dist/ would still hold it
    touch('src/engine/deep/nested', AFTER);
    expect(ran()).toBe('source');

    touch('src/engine/deep/nested', BEFORE);
    renameSync(join(root, 'src/engine/deep/nested/rule.ts'), join(root, 'src/engine/deep/nested/renamed.ts'));
    touch('src/engine/deep/nested', AFTER);
    expect(ran()).toBe('source');
  });

  it('runs the sources when dist/ is missing, and dist/ again once it is rebuilt', () => {
    rmSync(join(root, 'dist'), { recursive: true });
    expect(ran()).toBe('source');
    write('dist/cli/entry.js', "process.stdout.write('compiled\\n');\n", BUILT);
    expect(ran()).toBe('compiled');
  });

  it('runs dist/ in an installed package (no tsconfig.json), however new its src/ is', () => {
    unlinkSync(join(root, 'tsconfig.json'));
    touch('src/engine/deep/nested/rule.ts', AFTER);
    expect(ran()).toBe('compiled');
  });
});
