/**
 * Start-up time of the `chainpilot` command (bin/chainpilot.js, running the compiled dist/) against
 * a bare `node -e 0`, measured interleaved in the same run (median of each). Goals (design.md §9,
 * issue 18): `--version` within 2x, `validate FILE` within 4x. Run `npm run build` first: with a
 * missing or stale dist/ the command runs the sources through tsx and the note says so.
 * Issue 41: the import cost (time over `node -e 0`) of `chainpilot/testing` within 2x that of
 * `chainpilot/strategy`, both imported from the compiled dist/ in the same rounds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { percentile, type Bench } from './harness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = 15;

function wallMs(args: readonly string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${String(r.status)}: ${r.stderr.toString()}`);
  return ms;
}

function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(`${e.parentPath}/${e.name}`).mtimeMs);
  }
  return newest;
}

const bench: Bench = {
  name: 'startup',
  async run() {
    const compiled = `${root}/dist/cli/entry.js`;
    const fresh = existsSync(compiled) && newestMtimeMs(`${root}/src`) <= statSync(compiled).mtimeMs;
    const note = fresh ? 'compiled dist/' : 'dist/ missing or stale: sources through tsx; run npm run build';
    const cases = {
      baseline: ['-e', '0'],
      version: ['bin/chainpilot.js', '--version'],
      validate: ['bin/chainpilot.js', 'validate', 'config/paper-sim.yaml'],
      strategyApi: ['--input-type=module', '-e', "await import('./dist/strategies/api.js')"],
      testKit: ['--input-type=module', '-e', "await import('./dist/testing/index.js')"],
    } as const;
    const samples: Record<keyof typeof cases, number[]> = { baseline: [], version: [], validate: [], strategyApi: [], testKit: [] };
    for (const args of Object.values(cases)) wallMs(args); // warm the file cache
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, args] of Object.entries(cases)) samples[name as keyof typeof cases].push(wallMs(args));
    }
    const base = percentile(samples.baseline, 50);
    const validate = percentile(samples.validate, 50);
    const version = percentile(samples.version, 50);
    const strategyCost = percentile(samples.strategyApi, 50) - base;
    const kitCost = percentile(samples.testKit, 50) - base;
    return [
      { name: 'node -e 0 (baseline), median', value: base, unit: 'ms' },
      { name: 'chainpilot --version, median', value: version, unit: 'ms', ratio: version / base, note: `goal <= 2; ${note}` },
      { name: 'chainpilot validate config/paper-sim.yaml, median', value: validate, unit: 'ms', ratio: validate / base, note: 'goal <= 4' },
      { name: 'import chainpilot/strategy, over baseline', value: strategyCost, unit: 'ms' },
      {
        name: 'import chainpilot/testing, over baseline',
        value: kitCost,
        unit: 'ms',
        ratio: kitCost / strategyCost,
        note: `goal <= 2 (ratio to chainpilot/strategy's import); ${note}`,
      },
    ];
  },
};
export default bench;
