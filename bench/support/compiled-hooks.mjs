// Resolve hook of bench/support/compiled.mjs: src/**/*.ts -> dist/**/*.js. BENCH_DIST names another
// build's dist/ (a directory; e.g. the previous commit's, built elsewhere) so that before and after
// can be run as alternating processes on the same bench files.
import { pathToFileURL } from 'node:url';

const SRC = new URL('../../src/', import.meta.url).href;
const DIST = process.env.BENCH_DIST ? pathToFileURL(`${process.env.BENCH_DIST.replace(/\/$/, '')}/`).href : new URL('../../dist/', import.meta.url).href;

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.startsWith(SRC) && r.url.endsWith('.ts')) return { ...r, url: `${DIST}${r.url.slice(SRC.length, -3)}.js`, format: 'module' };
  return r;
}
