/**
 * `chainpilot init DIR` makes a strategy project that works with the package from this repository:
 * its deployment validates (strategy loaded through `chainpilot/strategy` from dist/), its strategy
 * and test typecheck against dist's types, and its test (on chainpilot/testing) passes; `new strategy
 * NAME` adds one more, never over a file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import { resolveStrategies } from '../../src/runtime/compose/resolve-strategies.js';

const root = mkdtempSync(join(tmpdir(), 'cp-init-'));
const app = join(root, 'My Bots');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cli = (cwd: string, ...args: string[]): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, [resolve('bin/chainpilot.js'), ...args], { cwd, encoding: 'utf8', timeout: 60_000 });

describe('chainpilot init', () => {
  it('makes the project, prints what it made and the next command, and refuses to write over it', () => {
    const r = cli(root, 'init', 'My Bots');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    for (const f of ['package.json', 'tsconfig.json', 'strategies/dip-buyer.ts', 'strategies/dip-buyer.test.ts', 'deploy.yaml', 'README.md']) {
      expect(r.stdout).toContain(`  ${f}\n`);
      expect(existsSync(join(app, f))).toBe(true);
    }
    expect(r.stdout).toContain('next: cd My Bots && npm install && npm test && npx chainpilot paper deploy.yaml --duration 60s');
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> };
    expect(pkg).toMatchObject({ name: 'my-bots', dependencies: { chainpilot: expect.stringMatching(/^\^\d+\.\d+\.\d+/) } });
    const again = cli(root, 'init', 'My Bots');
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/CLI_BAD_PATH: init My Bots cannot be used: it already holds package.json/);
  });

  it('validates its deployment with the strategy loaded through chainpilot/strategy, and typechecks against dist types', async () => {
    mkdirSync(join(app, 'node_modules'));
    symlinkSync(resolve('.'), join(app, 'node_modules', 'chainpilot'));
    symlinkSync(resolve('node_modules/vitest'), join(app, 'node_modules', 'vitest'));
    const loaded = loadDeployment(join(app, 'deploy.yaml'));
    const [s] = await resolveStrategies(loaded);
    expect(s).toMatchObject({ id: 'dip-buyer', params: { watchMs: 600_000, minHolders: 5 } });
    const tsc = spawnSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', join(app, 'tsconfig.json')], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(tsc.stdout).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);

  it("runs its strategy's test, which trades on the test kit (chainpilot/testing from dist), and it passes", () => {
    expect(readFileSync(join(app, 'strategies/dip-buyer.test.ts'), 'utf8')).toContain("import { testStrategy } from 'chainpilot/testing';");
    const run = spawnSync(process.execPath, [resolve('node_modules/vitest/vitest.mjs'), 'run', '--reporter=verbose'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const out = stripVTControlCharacters(run.stdout); // vitest colours its report when the parent run does
    expect(out).toContain('buys a dip once enough wallets hold the token, and its take-profit rule sells it');
    expect(out).toMatch(/Tests\s+2 passed \(2\)/);
    expect(run.status).toBe(0);
  }, 120_000);

  it('runs its paper deployment on the embedded simulator as its README says, and the strategy trades', () => {
    const run = cli(app, 'paper', 'deploy.yaml', '--duration', '5s');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const fills = /summary over .*?, (\d+) fills,/.exec(String(run.stdout));
    expect(fills, String(run.stdout)).not.toBeNull();
    expect(Number(fills![1])).toBeGreaterThan(0);
  }, 120_000);

  it('adds a strategy and its test with new strategy NAME, and refuses a bad or taken name', () => {
    const r = cli(app, 'new', 'strategy', 'momentum-2');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('  strategies/momentum-2.ts\n  strategies/momentum-2.test.ts\n');
    expect(r.stdout).toContain('next: npm test');
    expect(readFileSync(join(app, 'strategies/momentum-2.ts'), 'utf8')).toContain('id: "momentum-2"');
    expect(cli(app, 'new', 'strategy', 'momentum-2').stderr).toMatch(/already holds strategies\/momentum-2\.ts/);
    expect(cli(app, 'new', 'strategy', 'Bad Name').stderr).toMatch(/CLI_BAD_PATH: new strategy Bad Name cannot be used: a name is lower-case/);
    expect(cli(root, 'new', 'strategy', 'x').stderr).toMatch(/not a chainpilot project/);
  });
});
