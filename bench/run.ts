/**
 * `npm run bench [filter]`: runs every bench/*.bench.ts (or those whose file name contains the
 * filter), one after another in this process, and prints each row with its ratio to the baseline.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatRows, type Bench } from './harness.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();
for (const f of files) {
  const mod = (await import(pathToFileURL(`${dir}/${f}`).href)) as { default: Bench };
  const rows = await mod.default.run();
  console.log(formatRows(mod.default.name, rows));
}
