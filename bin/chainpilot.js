#!/usr/bin/env node
// The `chainpilot` command: runs the compiled CLI in dist/ (built by `npm install` through
// `prepare`, and before packing). tsx is loaded only to read a user's .ts strategy file.
//
// A command with a bundle (dist/cli/bundle/, made by scripts/bundle-cli.mjs in `npm run build`)
// runs from it: one CommonJS file compiled through vm.Script with V8's code cache, written next to
// the bundle by the first run (docs/performance.md, "Start-up"). Anything else (`--help`,
// `--version`, no bundles built) runs dist/cli/entry.js.
//
// In a source checkout (tsconfig.json present) whose dist/ is missing or older than a file in
// src/, the TypeScript sources run through tsx instead, so an edited checkout never runs stale
// code; `npm run build` makes it fast again. An installed package without dist/ is broken: say so.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = `${root}/dist/cli/entry.js`;
const source = `${root}/src/cli/entry.ts`;
const bundles = `${root}/dist/cli/bundle`;

/**
 * The newest modification time (ms) of `dir` and of anything under it. A file edited in place
 * changes only its own mtime, so every file is stat'ed; a file added, removed or renamed changes
 * its directory's (a removed one leaves no file to stat). About 5 ms of CPU for src/'s 500 files
 * in a fresh process (docs/performance.md, "Start-up"): stats alone, with nothing cheaper that
 * still sees an in-place edit.
 */
function newestMtimeMs(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const name of readdirSync(dir)) {
    const path = `${dir}/${name}`;
    const s = statSync(path);
    const t = s.isDirectory() ? newestMtimeMs(path) : s.mtimeMs;
    if (t > newest) newest = t;
  }
  return newest;
}

function useSources() {
  if (!existsSync(`${root}/tsconfig.json`) || !existsSync(source)) return false;
  if (!existsSync(compiled)) return true;
  return newestMtimeMs(`${root}/src`) > statSync(compiled).mtimeMs;
}

/**
 * The bundle of command `name` and its code cache's path (dist/cli/bundle/commands.json), if there
 * is one to run. In a source checkout (tsconfig.json) it must be at least as new as
 * dist/cli/entry.js: a dist/ rebuilt by tsc alone leaves older bundles behind, which are not run. An
 * installed package's dist/ and bundles come from one tarball, and npm writes their mtimes in the
 * order it extracts them (bundle/ before entry.js), so there the order says nothing.
 */
function bundleOf(name) {
  if (name === undefined || !existsSync(`${bundles}/commands.json`)) return undefined;
  const commands = JSON.parse(readFileSync(`${bundles}/commands.json`, 'utf8'));
  if (!Object.hasOwn(commands, name)) return undefined;
  const file = `${bundles}/${commands[name].bundle}`;
  const fresh = existsSync(file) && (!existsSync(`${root}/tsconfig.json`) || statSync(file).mtimeMs >= statSync(compiled).mtimeMs);
  return fresh ? { file, cacheFile: `${bundles}/${commands[name].cache}` } : undefined;
}

/** The code cache at `path`, if there is one to read (a cache it cannot read is said in one line and not used). */
function readCodeCache(path) {
  try {
    return readFileSync(path);
  } catch (e) {
    if (e.code !== 'ENOENT') process.stderr.write(`chainpilot: start-up cache ${path} not read: ${e.message}\n`);
    return undefined;
  }
}

/** Writes V8's code cache of `script` to `path` (through a temporary file: a concurrent start reads it whole or not at all). */
function writeCodeCache(script, path) {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    // A package installed read-only runs from its bundle without a cache (still faster than
    // dist/): say nothing then. Anything else is unexpected: one line, the command's output unchanged.
    if (!['EACCES', 'EPERM', 'EROFS'].includes(e.code)) process.stderr.write(`chainpilot: start-up cache ${path} not written: ${e.message}\n`);
  }
}

/**
 * Runs a command's bundle as Node runs a CommonJS file, but compiled with the code cache in
 * `cacheFile` when V8 accepts it (same V8 version and flags). With no cache, or one V8
 * rejects, the process writes a fresh one when it exits, after the command ran, so the functions
 * the command ran are in it, compiled.
 */
async function runBundle({ file, cacheFile }) {
  const cachedData = readCodeCache(cacheFile);
  const wrapped = `(function (exports, require, module, __filename, __dirname, __chainpilotImport) { ${readFileSync(file, 'utf8')}\n})`;
  const script = new vm.Script(wrapped, { filename: file, cachedData });
  // a help screen runs almost nothing of the command: its cache would hold nothing worth keeping
  const help = process.argv.includes('--help') || process.argv.includes('-h');
  if ((cachedData === undefined || script.cachedDataRejected) && !help) process.once('exit', () => writeCodeCache(script, cacheFile));
  const module = { exports: {} };
  // The bundle's import() of a strategy file, tsx or a node: module (scripts/bundle-cli.mjs): from
  // here, in the same package, a bare name resolves as from the bundle.
  const importFromBundle = (specifier) => import(specifier);
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), importFromBundle);
  await module.exports.main(process.argv);
}

if (useSources()) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source);
} else if (existsSync(compiled)) {
  const bundle = bundleOf(process.argv[2]);
  if (bundle) await runBundle(bundle);
  else await import(compiled);
} else {
  process.stderr.write(
    'chainpilot: the compiled CLI (dist/cli/entry.js) is missing from this installation.\n' +
      'hint: reinstall the package; in a clone of the repository run `npm install` (or `npm run build`).\n',
  );
  process.exitCode = 1;
}
