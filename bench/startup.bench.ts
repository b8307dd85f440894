/**
 * Start-up time of the `chainpilot` command (bin/chainpilot.js, running the compiled dist/) against
 * a bare `node -e 0`, measured interleaved in the same run (median of each). Goals (design.md §9,
 * issue 18): `--version` within 2x, `validate FILE` within 4x. Run `npm run build` first: with a
 * missing or stale dist/ the command runs the sources through tsx and the note says so.
 * Issue 41: the import cost (time over `node -e 0`) of `chainpilot/testing` within 2x that of
 * `chainpilot/strategy`, both imported from the compiled dist/ in the same rounds.
 * Issue 42: `validate` within 3x; `status` and a manual verb (`cancel`) start lean too (run against
 * a port where no daemon listens: they load what they load, then fail with CLI_API_UNREACHABLE).
 * validate, status and cancel run from their command bundles (dist/cli/bundle, scripts/bundle-cli.mjs):
 * the warm-up round writes each bundle's code cache, so the measured rounds compile from it.
 * On a loaded machine wall time mostly measures waiting for a core: each case's CPU time (the
 * children's user + system time from /proc/self/stat, Linux; 10 ms ticks, summed over the rounds)
 * is reported beside it, as a ratio to `node -e 0`'s.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadNote, percentile, type Bench } from './harness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = 15;

/** CPU ms (user + system) of this process's waited-for children so far; undefined off Linux. */
function childCpuMs(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ');
  // after the command's ")": state is field 0, cutime and cstime are fields 13 and 14 (clock ticks, 100 a second)
  return fields ? (Number(fields[13]) + Number(fields[14])) * 10 : undefined;
}

/** Runs `node ...args`; its wall time, ms. `failing`: the command is expected to exit 1 (a status without a daemon). */
function wallMs(args: readonly string[], cpu: { ms: number }, failing = false): number {
  const cpu0 = childCpuMs();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu1 = childCpuMs();
  if (cpu0 !== undefined && cpu1 !== undefined) cpu.ms += cpu1 - cpu0;
  if (r.status !== (failing ? 1 : 0)) throw new Error(`node ${args.join(' ')} exited ${String(r.status)}: ${r.stderr.toString()}`);
  if (failing && !r.stderr.toString().includes('CLI_API_UNREACHABLE')) throw new Error(`node ${args.join(' ')}: ${r.stderr.toString()}`);
  return ms;
}

/** The newest mtime under `dir`, directories included: the test bin/chainpilot.js applies to dist/. */
function newestMtimeMs(dir: string): number {
  let newest = statSync(dir).mtimeMs;
  for (const name of readdirSync(dir)) {
    const s = statSync(`${dir}/${name}`);
    newest = Math.max(newest, s.isDirectory() ? newestMtimeMs(`${dir}/${name}`) : s.mtimeMs);
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
      // no daemon on port 9 (discard): each fails with CLI_API_UNREACHABLE after loading what it needs
      status: ['bin/chainpilot.js', 'status', '--url', 'http://127.0.0.1:9'],
      cancel: ['bin/chainpilot.js', 'cancel', 'paper-sim', 'i-1', '--url', 'http://127.0.0.1:9', '--by', 'bench'],
    } as const;
    type Case = keyof typeof cases;
    const failing = (name: Case): boolean => name === 'status' || name === 'cancel';
    const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, [] as number[]])) as unknown as Record<Case, number[]>;
    const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, { ms: 0 }])) as unknown as Record<Case, { ms: number }>;
    for (const [name, args] of Object.entries(cases)) wallMs(args, { ms: 0 }, failing(name as Case)); // warm the file cache
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, args] of Object.entries(cases)) samples[name as Case].push(wallMs(args, cpu[name as Case], failing(name as Case)));
    }
    const load = loadNote();
    const cpuRow = (name: Case, label: string, goal: string): { name: string; value: number; unit: string; ratio: number; note: string } => ({
      name: `${label}, CPU per run`,
      value: cpu[name].ms / ROUNDS,
      unit: 'ms',
      ratio: cpu[name].ms / Math.max(1, cpu.baseline.ms),
      note: `${goal}CPU time ratio to node -e 0's (${(cpu.baseline.ms / ROUNDS).toFixed(1)} ms); ${load}`,
    });
    const base = percentile(samples.baseline, 50);
    const validate = percentile(samples.validate, 50);
    const version = percentile(samples.version, 50);
    const strategyCost = percentile(samples.strategyApi, 50) - base;
    const kitCost = percentile(samples.testKit, 50) - base;
    return [
      { name: 'node -e 0 (baseline), median', value: base, unit: 'ms' },
      { name: 'chainpilot --version, median', value: version, unit: 'ms', ratio: version / base, note: `goal <= 2; ${note}` },
      { name: 'chainpilot validate config/paper-sim.yaml, median', value: validate, unit: 'ms', ratio: validate / base, note: `goal <= 3 (issue 42); ${load}` },
      cpuRow('validate', 'chainpilot validate config/paper-sim.yaml', 'goal <= 3 (issue 42); '),
      { name: 'chainpilot status (no daemon), median', value: percentile(samples.status, 50), unit: 'ms', ratio: percentile(samples.status, 50) / base },
      cpuRow('status', 'chainpilot status (no daemon)', ''),
      { name: 'chainpilot cancel (no daemon), median', value: percentile(samples.cancel, 50), unit: 'ms', ratio: percentile(samples.cancel, 50) / base },
      cpuRow('cancel', 'chainpilot cancel (no daemon)', ''),
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
