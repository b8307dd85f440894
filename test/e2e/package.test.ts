/**
 * The package as a user gets it: `npm pack` of a copy of the project (which builds dist/ through
 * `prepare`), the tarball
 * installed into an empty project from npm's cache (`--prefer-offline`: after any install of this
 * project the cache holds every dependency, so nothing is fetched), each entry point imported, and
 * `npx chainpilot paper` run with a strategy written against `chainpilot/strategy`.
 *
 * Also (issue 29): the tarball holds only what the package needs (no journal of a rehearsal), npm
 * prints no warning about our own config or engines while installing it, the entry points load from
 * a default CommonJS app (`npm init -y`: require, and a .ts strategy compiled as CommonJS) as well as
 * from ESM, and the declarations type-check with `skipLibCheck: false`.
 *
 * Slow (packing builds the project; installing compiles the native addons): an e2e test.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'cp-package-'));
const app = join(dir, 'app');
/** A default CommonJS app (`npm init -y`: no "type") inside the installed one, sharing its node_modules. */
const cjsApp = join(app, 'cjs');
let installOutput = '';
let tarballFiles: string[] = [];

const STRATEGY = `import { defineStrategy, solParam, z, type TokenLaunched } from 'chainpilot/strategy';

const params = z.strictObject({ buySol: solParam.prefault('0.01'), maxBuys: z.number().int().positive().default(2) });

export default defineStrategy<z.output<typeof params>, { buys: number }>({
  id: 'first-launches',
  params,
  rooms: () => ['latest'],
  initialState: () => ({ buys: 0 }),
  onLaunch(e: TokenLaunched, ctx) {
    if (ctx.state.buys >= ctx.params.maxBuys) return;
    const r = ctx.buy({ mint: e.mint, lamports: ctx.params.buySol, reason: 'first launches' });
    if (r.ok) ctx.state.buys += 1;
  },
});
`;

const DEPLOYMENT = `version: 1
name: package-e2e
endpoints:
  simulator: { seed: 7, speed: 120 }
strategies:
  - use: ./first-launches.ts
    params: { buySol: "0.02" }
risk:
  maxTradeSol: "0.1"
  maxOpenPositions: 5
  maxExposureSol: "1"
  dailyLossLimitSol: "1"
telemetry:
  logLevel: warn
  decisionLog: ./decisions.jsonl
`;

/** Lists the files a module graph loads, through a resolve hook in a child process. */
const GRAPH_PROBE = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx);
  if (!r.url.startsWith('node:')) process.stdout.write(r.url + '\\\\n');
  return r;
}\`));
await import(process.argv[2]);
`;

async function npm(args: string[], cwd: string): Promise<string> {
  const r = await run('npm', args, { cwd, timeout: 1_100_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } });
  return `${r.stdout}${r.stderr}`;
}

/**
 * Packs a copy of the project (its own dist/, node_modules linked), so packing never rebuilds the
 * dist/ that other tests and the CLI of this checkout are using at the same time.
 */
async function packCopy(): Promise<void> {
  const copy = join(dir, 'project');
  mkdirSync(copy);
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { files: string[] };
  for (const f of [
    ...pkg.files.filter((f) => f !== 'dist'),
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'scripts/bundle-cli.mjs', // the build's command bundles (start-up, issue 42)
    '.npmrc',
    '.prebuild-installrc',
    'README.md',
  ]) {
    if (f.startsWith('!')) continue; // an exclusion of `files`, not a path
    cpSync(join(repo, f), join(copy, f), { recursive: true });
  }
  // a rehearsal's journal left next to the shipped deployments must not be packed
  mkdirSync(join(copy, 'config/data'), { recursive: true });
  writeFileSync(join(copy, 'config/data/live-sim.journal.sqlite'), 'journal');
  writeFileSync(join(copy, 'config/data/live-sim.journal.sqlite.previous'), 'journal');
  symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'));
  await npm(['pack', '--pack-destination', dir], copy);
}

beforeAll(async () => {
  await packCopy();
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${dir}`);
  tarballFiles = (await run('tar', ['-tzf', join(dir, tarball)])).stdout.trim().split('\n');
  // The empty project: native addons build from source like in the repository (no binary download).
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'user-app', version: '1.0.0', private: true, type: 'module' }));
  copyFileSync(join(repo, '.npmrc'), join(app, '.npmrc'));
  copyFileSync(join(repo, '.prebuild-installrc'), join(app, '.prebuild-installrc'));
  installOutput = await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, tarball)], app);
  mkdirSync(cjsApp);
  writeFileSync(join(cjsApp, 'package.json'), JSON.stringify({ name: 'cjs', version: '1.0.0', main: 'index.js', license: 'ISC' }));
  writeFileSync(join(app, 'first-launches.ts'), STRATEGY);
  writeFileSync(join(app, 'deploy.yaml'), DEPLOYMENT);
  writeFileSync(join(app, 'graph-probe.mjs'), GRAPH_PROBE);
}, 1_200_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packed chainpilot package', () => {
  it('ships compiled JavaScript and type declarations for every entry point', () => {
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/chainpilot/package.json'), 'utf8')) as {
      exports: Record<string, { import?: string; types?: string }>;
    };
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './package.json', './runtime', './sim', './strategy', './testing']);
    for (const [name, entry] of Object.entries(pkg.exports)) {
      if (name === './package.json') continue;
      expect(readFileSync(join(app, 'node_modules/chainpilot', entry.import!), 'utf8').length).toBeGreaterThan(0);
      expect(readFileSync(join(app, 'node_modules/chainpilot', entry.types!), 'utf8').length).toBeGreaterThan(0);
    }
  });

  it('imports each entry point from an installed project', async () => {
    const script = `const m = await import('chainpilot'); const s = await import('chainpilot/strategy');
const sim = await import('chainpilot/sim'); const rt = await import('chainpilot/runtime');
console.log(JSON.stringify([typeof m.createServiceClients, typeof m.ChainpilotError, typeof s.defineStrategy, typeof s.solParam.parse, typeof s.z.object, typeof sim.startSimulator, typeof rt.runPaper, typeof rt.loadDeployment]));`;
    const r = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app });
    expect(JSON.parse(r.stdout)).toEqual(['function', 'function', 'function', 'function', 'function', 'function', 'function', 'function']);
  });

  it('loads no native addon and no Solana SDK for chainpilot/strategy', async () => {
    const r = await run(process.execPath, ['graph-probe.mjs', 'chainpilot/strategy'], { cwd: app });
    const loaded = r.stdout.trim().split('\n');
    expect(loaded.some((u) => u.includes('/node_modules/chainpilot/dist/strategies/api.js'))).toBe(true);
    expect(loaded.filter((u) => /@solana|litesvm|better-sqlite3|bigint-buffer|\.node$/.test(u))).toEqual([]);
  });

  it('loads no native addon and no Solana SDK for chainpilot/testing (the strategy test kit)', async () => {
    const r = await run(process.execPath, ['graph-probe.mjs', 'chainpilot/testing'], { cwd: app });
    const loaded = r.stdout.trim().split('\n');
    expect(loaded.some((u) => u.includes('/node_modules/chainpilot/dist/testing/index.js'))).toBe(true);
    expect(loaded.filter((u) => /@solana|litesvm|better-sqlite3|bigint-buffer|\.node$/.test(u))).toEqual([]);
  });

  it('runs `npx chainpilot paper` with a user strategy written against chainpilot/strategy', async () => {
    const r = await run('npx', ['--no-install', 'chainpilot', 'paper', 'deploy.yaml', '--duration', '4s'], { cwd: app, timeout: 120_000 });
    expect(r.stdout).toContain('package-e2e with first-launches on the embedded simulator');
    expect(r.stdout).toContain('summary over');
    const decisions = readFileSync(join(app, 'decisions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; strategyId: string });
    expect(decisions.some((d) => d.kind === 'intent' && d.strategyId === 'first-launches')).toBe(true);
  }, 180_000);

  it('records the simulator, backtests the recording and sweeps it on worker threads, all from the compiled package', async () => {
    const cli = (args: string[]): Promise<{ stdout: string }> => run('npx', ['--no-install', 'chainpilot', ...args], { cwd: app, timeout: 240_000 });
    const deployment = join(app, 'node_modules/chainpilot/config/paper-sim.yaml');
    await cli(['record', deployment, '--sim', '--seed', '42', '--duration', '20m', '--out', 'rec']);
    const bt = await cli(['backtest', deployment, '--data', 'rec', '--out', 'bt']);
    expect(bt.stdout).toMatch(/net PnL/i);
    expect(JSON.parse(readFileSync(join(app, 'bt/report.json'), 'utf8'))).toHaveProperty('fingerprint');
    const sweep = await cli(['sweep', deployment, '--data', 'rec', '--set', 'strategies[curve-momentum].params.milestonePct=40,50', '--out', 'sw']);
    expect(sweep.stdout).toContain('wrote');
    const cells = (JSON.parse(readFileSync(join(app, 'sw/sweep.json'), 'utf8')) as { cells: unknown[] }).cells;
    expect(cells).toHaveLength(2);
  }, 600_000);

  it('prints the version quickly and a coded error with a hint for a bad deployment', async () => {
    const v = await run('npx', ['--no-install', 'chainpilot', '--version'], { cwd: app });
    expect(v.stdout.trim()).toBe(JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version);
    writeFileSync(join(app, 'bad.yaml'), 'version: 1\nname: bad\nstrategies:\n  - use: no-such-strategy\n');
    const bad = await run('npx', ['--no-install', 'chainpilot', 'validate', 'bad.yaml'], { cwd: app }).catch((e: { stderr: string; code: number }) => e);
    expect('code' in bad ? bad.code : 0).toBe(1);
    expect(bad.stderr).toMatch(/^[A-Z]+_[A-Z_]+: /m);
    expect(bad.stderr).toContain('hint: ');
  });

  it('packs only what the package needs: no journal, database or data directory', () => {
    expect(tarballFiles.length).toBeGreaterThan(100);
    const tops = new Set(tarballFiles.map((f) => f.split('/')[1]));
    expect([...tops].sort()).toEqual(['README.md', 'assets', 'bin', 'config', 'dist', 'docs', 'package.json', 'src']);
    expect(tarballFiles.filter((f) => /config\/data\/|\.sqlite|\.db$|wallet\.json$|\.lock$/.test(f))).toEqual([]);
    // the command bundles ship; a code cache of the packing machine's node does not
    expect(tarballFiles).toEqual(expect.arrayContaining(['package/dist/cli/bundle/commands.json', 'package/dist/cli/bundle/validate.cjs']));
    expect(tarballFiles.filter((f) => f.endsWith('.cache'))).toEqual([]);
  });

  it('installs with no npm warning about our own config, and no engine warning but the one documented', () => {
    const warnings = installOutput.split('\n').filter((l) => /^npm warn/i.test(l));
    expect(warnings.filter((l) => /Unknown (project|env|user|global) config|npmrc/i.test(l))).toEqual([]);
    // @solana/errors (under @solana/kit) pins commander 15.0.0 for its own CLI, never loaded by us; an
    // app can add the override README gives. Nothing else in the tree wants more than our engines say.
    const engines = warnings.filter((l) => /EBADENGINE\s+package:/.test(l));
    expect(engines.filter((l) => !l.includes("'commander@15.0.0'"))).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/chainpilot/package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('^20.19.0 || ^22.13.0 || 24.x || 25.x || 26.x');
  });

  it('loads every entry point with require() from a default CommonJS app', async () => {
    const script = `const s = require('chainpilot/strategy'); const m = require('chainpilot'); const rt = require('chainpilot/runtime'); const sim = require('chainpilot/sim');
console.log(JSON.stringify([typeof s.defineStrategy, typeof m.ChainpilotError, typeof rt.runPaper, typeof sim.startSimulator]));`;
    writeFileSync(join(cjsApp, 'index.js'), script);
    const r = await run(process.execPath, ['index.js'], { cwd: cjsApp });
    expect(JSON.parse(r.stdout)).toEqual(['function', 'function', 'function', 'function']);
  });

  it('validates a deployment whose .ts strategy, written as docs/strategies.md shows, compiles as CommonJS in a default app', async () => {
    writeFileSync(join(cjsApp, 'first-launches.ts'), STRATEGY);
    writeFileSync(
      join(cjsApp, 'required.cjs'),
      "const { defineStrategy, z } = require('chainpilot/strategy');\nmodule.exports = defineStrategy({ id: 'required', params: z.strictObject({}), rooms: () => ['latest'] });\n",
    );
    writeFileSync(join(cjsApp, 'deploy.yaml'), DEPLOYMENT.replace('risk:\n', '  - use: ./required.cjs\nrisk:\n'));
    // from the package's validate bundle: the first run writes its code cache, the second compiles from it
    const bundles = join(app, 'node_modules/chainpilot/dist/cli/bundle');
    const { validate } = JSON.parse(readFileSync(join(bundles, 'commands.json'), 'utf8')) as Record<string, { cache: string }>;
    for (let i = 0; i < 2; i++) {
      const r = await run('npx', ['--no-install', 'chainpilot', 'validate', 'deploy.yaml'], { cwd: cjsApp, timeout: 120_000 });
      expect(r.stdout).toContain('deploy.yaml is valid');
      expect(r.stderr).toBe('');
      expect(readdirSync(bundles)).toContain(validate!.cache);
    }
  }, 180_000);

  it('ships declarations that type-check with skipLibCheck: false, from ESM and from CommonJS', async () => {
    const imports = `import { defineStrategy } from 'chainpilot/strategy';
import * as cp from 'chainpilot';
import * as sim from 'chainpilot/sim';
import * as rt from 'chainpilot/runtime';
import * as kit from 'chainpilot/testing';
export const used = [defineStrategy, cp.ChainpilotError, sim.startSimulator, rt.runPaper, kit.testStrategy];
`;
    writeFileSync(join(app, 'types-esm.mts'), imports);
    writeFileSync(join(cjsApp, 'types-cjs.cts'), imports);
    const options = { strict: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, types: ['node'] };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['types-esm.mts', 'cjs/types-cjs.cts'] }));
    const tsc = join(repo, 'node_modules/typescript/bin/tsc');
    const r = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
    expect(r.stdout).toBe('');
  }, 120_000);
});
