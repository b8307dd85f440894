// Resolve hook of bench/support/compiled.mjs: src/**/*.ts -> dist/**/*.js.
const SRC = new URL('../../src/', import.meta.url).href;
const DIST = new URL('../../dist/', import.meta.url).href;

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.startsWith(SRC) && r.url.endsWith('.ts')) return { ...r, url: `${DIST}${r.url.slice(SRC.length, -3)}.js`, format: 'module' };
  return r;
}
