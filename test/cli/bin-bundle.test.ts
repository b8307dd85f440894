/**
 * bin/chainpilot.js runs a command that has a bundle (dist/cli/bundle/, scripts/bundle-cli.mjs)
 * from it, compiled with V8's code cache written next to it by the first run; anything else runs
 * dist/cli/entry.js. Checked on a small checkout in a temp dir (the real bin file, a dist/ entry
 * that prints "compiled", a bundle that prints "bundled" and imports a file the way a bundle
 * imports a strategy), then on the real build's `validate` with a user strategy file.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const BUILT = new Date('2026-01-02T00:00:00Z');
const LATER = new Date('2026-01-03T00:00:00Z');
const CACHE = 'dist/cli/bundle/hello.0123456789abcdef.cache';

let root: string;

function write(rel: string, text: string, at: Date = BUILT): void {
  const path = join(root, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, at, at);
}

/** Runs the temp checkout's bin with `args`: its stdout, after checking it printed nothing on stderr. */
function ran(...args: string[]): string {
  const r = spawnSync(process.execPath, [join(root, 'bin/chainpilot.js'), ...args], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.trim();
}

// The bundle's shape (scripts/bundle-cli.mjs): a CommonJS file whose `main` runs the command; its
// import() of anything outside it goes through __chainpilotImport.
const BUNDLE = [
  "const { pathToFileURL } = require('node:url');",
  'exports.main = async (argv) => {',
  "  const m = await __chainpilotImport(pathToFileURL(require('node:path').join(__dirname, '../../../strategy.mjs')).href);",
  '  process.stdout.write(`bundled ${argv[2]} ${m.id}\\n`);',
  '};',
].join('\n');

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chainpilot-bundle-'));
  mkdirSync(join(root, 'bin'));
  copyFileSync(join(repo, 'bin/chainpilot.js'), join(root, 'bin/chainpilot.js'));
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n'); // an installed package: no tsconfig.json
  write('dist/cli/entry.js', "process.stdout.write('compiled\\n');\n");
  write('dist/cli/bundle/hello.cjs', BUNDLE);
  write('dist/cli/bundle/commands.json', JSON.stringify({ hello: { bundle: 'hello.cjs', cache: 'hello.0123456789abcdef.cache' } }));
  write('strategy.mjs', "export const id = 'from-a-file';\n");
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('bin/chainpilot.js with command bundles', () => {
  it("runs a bundled command from its bundle and writes the code cache; the next run compiles from it, and the bundle's import() still works", () => {
    expect(ran('hello')).toBe('bundled hello from-a-file');
    expect(existsSync(join(root, CACHE))).toBe(true);
    const written = statSync(join(root, CACHE)).mtimeMs;
    // from the cache: node 20 drops a vm.Script's own dynamic-import callback then, which the bundle does not use
    expect(ran('hello')).toBe('bundled hello from-a-file');
    expect(statSync(join(root, CACHE)).mtimeMs).toBe(written); // accepted, so not written again
    expect(readdirSync(join(root, 'dist/cli/bundle')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('replaces a cache V8 rejects (another node, or not a cache at all) and still runs the command', () => {
    write(CACHE, 'not a code cache');
    expect(ran('hello')).toBe('bundled hello from-a-file');
    expect(readFileSync(join(root, CACHE), 'utf8')).not.toBe('not a code cache');
  });

  it('runs the command when its cache can be neither read nor written, and says so in one line each', () => {
    mkdirSync(join(root, CACHE)); // a directory where the cache should be
    const r = spawnSync(process.execPath, [join(root, 'bin/chainpilot.js'), 'hello'], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('bundled hello from-a-file');
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^chainpilot: start-up cache \S+ not read: EISDIR.*\nchainpilot: start-up cache \S+ not written: .*\n$/);
    expect(readdirSync(join(root, 'dist/cli/bundle')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('writes no cache for a help screen', () => {
    expect(ran('hello', '--help')).toBe('bundled hello from-a-file');
    expect(existsSync(join(root, CACHE))).toBe(false);
  });

  it('runs dist/cli/entry.js for a command without a bundle, for no command, and in a checkout whose bundle is older than dist/', () => {
    expect(ran('other')).toBe('compiled');
    expect(ran()).toBe('compiled');
    expect(ran('--version')).toBe('compiled');
    utimesSync(join(root, 'dist/cli/entry.js'), LATER, LATER);
    // an installed package: npm extracts bundle/ before entry.js, so the bundle reads older; it runs
    expect(ran('hello')).toBe('bundled hello from-a-file');
    writeFileSync(join(root, 'tsconfig.json'), '{}\n'); // a source checkout: tsc rebuilt dist/ without the bundles
    expect(ran('hello')).toBe('compiled');
    rmSync(join(root, 'dist/cli/bundle'), { recursive: true }); // no bundles built (no esbuild)
    utimesSync(join(root, 'dist/cli/entry.js'), BUILT, BUILT);
    expect(ran('hello')).toBe('compiled');
  });
});

/** The newest mtime under `dir`, directories included: bin/chainpilot.js's staleness rule. */
function newestMtimeMs(dir: string): number {
  let newest = statSync(dir).mtimeMs;
  for (const name of readdirSync(dir)) {
    const s = statSync(join(dir, name));
    newest = Math.max(newest, s.isDirectory() ? newestMtimeMs(join(dir, name)) : s.mtimeMs);
  }
  return newest;
}

const bundles = join(repo, 'dist/cli/bundle');
// with src/ edited since the build, bin/chainpilot.js runs the sources: nothing here to check until `npm run build`
const built = existsSync(join(bundles, 'commands.json')) && statSync(join(bundles, 'commands.json')).mtimeMs >= newestMtimeMs(join(repo, 'src'));

describe.skipIf(!built)('the real build (npm run build)', () => {
  it('validates a deployment with a user strategy file from the bundle, with and without its code cache', () => {
    const commands = JSON.parse(readFileSync(join(bundles, 'commands.json'), 'utf8')) as Record<string, { bundle: string; cache: string }>;
    expect(Object.keys(commands)).toEqual(expect.arrayContaining(['validate', 'status', 'cancel', 'init', 'backtest', 'report']));
    const app = mkdtempSync(join(tmpdir(), 'chainpilot-bundle-app-'));
    try {
      mkdirSync(join(app, 'node_modules'));
      symlinkSync(repo, join(app, 'node_modules/chainpilot'));
      writeFileSync(
        join(app, 'mine.mjs'),
        "import { defineStrategy, z } from 'chainpilot/strategy';\nexport default defineStrategy({ id: 'mine', params: z.strictObject({ n: z.number() }), rooms: () => ['latest'] });\n",
      );
      writeFileSync(join(app, 'deploy.yaml'), 'version: 1\nname: mine\nendpoints:\n  simulator: {}\nstrategies:\n  - use: ./mine.mjs\n    params: { n: 3 }\n');
      const cache = join(bundles, commands['validate']!.cache);
      for (let i = 0; i < 2; i++) {
        const r = spawnSync(process.execPath, [join(repo, 'bin/chainpilot.js'), 'validate', 'deploy.yaml'], { cwd: app, encoding: 'utf8' });
        expect(r.stderr).toBe('');
        expect(r.stdout).toContain('use: ./mine.mjs');
        expect(existsSync(cache)).toBe(true);
      }
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});
