#!/usr/bin/env node
// The `chainpilot` command: runs the compiled CLI in dist/ (built by `npm install` through
// `prepare`, and before packing). tsx is loaded only to read a user's .ts strategy file.
//
// In a source checkout (tsconfig.json present) whose dist/ is missing or older than a file in
// src/, the TypeScript sources run through tsx instead, so an edited checkout never runs stale
// code; `npm run build` makes it fast again. An installed package without dist/ is broken: say so.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = `${root}/dist/cli/entry.js`;
const source = `${root}/src/cli/entry.ts`;

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

if (useSources()) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source);
} else if (existsSync(compiled)) {
  await import(compiled);
} else {
  process.stderr.write(
    'chainpilot: the compiled CLI (dist/cli/entry.js) is missing from this installation.\n' +
      'hint: reinstall the package; in a clone of the repository run `npm install` (or `npm run build`).\n',
  );
  process.exitCode = 1;
}
