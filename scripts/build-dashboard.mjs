// Bundles the dashboard page (src/service/dashboard/ui/app.ts and uPlot) into assets/dashboard/
// (app.js, app.css). The output is committed so that the daemon serves it offline with no build
// step at install; test/dashboard/bundle.test.ts fails when it is stale.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const options = {
  absWorkingDir: root,
  entryPoints: ['src/service/dashboard/ui/app.ts'],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  legalComments: 'eof',
  outdir: 'assets/dashboard',
  logLevel: 'warning',
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await build({ ...options, metafile: true });
  for (const [file, out] of Object.entries(r.metafile.outputs)) console.log(`${file}: ${out.bytes} bytes`);
}
