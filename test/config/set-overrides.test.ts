/**
 * `--set PATH=VALUE` on `paper` and `backtest` (one value per path) and the `strategies[ID]`
 * selector shared with `sweep`: by `id:`, by the strategy's own id (the one its definition
 * declares, for an entry without `id:`), by `use`, or by position.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDeployment, parseSetAssignment } from '../../src/config/index.js';
import { strategyIdsOf } from '../../src/runtime/compose/resolve-strategies.js';
import { cellDeployment } from '../../src/research/backtest/sweep-grid.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-set-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, ['bin/chainpilot.js', ...args], { encoding: 'utf8', timeout: 120_000 });

describe('--set PATH=VALUE', () => {
  it('parses one value per path, the whole text after the first = (commas included)', () => {
    expect(parseSetAssignment('risk.maxOpenPositions=2')).toEqual({ path: 'risk.maxOpenPositions', value: 2 });
    expect(parseSetAssignment('name=a,b')).toEqual({ path: 'name', value: 'a,b' });
    expect(() => parseSetAssignment('risk.maxOpenPositions')).toThrow(/expected PATH=VALUE/);
  });

  it('sets values before validation; a refused value names the --set option, not a line of the file', () => {
    const loaded = loadDeployment('config/paper-sim.yaml', {
      set: [
        { path: 'risk.maxOpenPositions', value: 2 },
        { path: 'strategies[curve-momentum].params.milestonePct', value: 40 },
      ],
    });
    expect(loaded.deployment.risk.maxOpenPositions).toBe(2);
    expect(loaded.deployment.strategies[1]?.params).toMatchObject({ milestonePct: 40 });
    // the file's other lines keep their positions
    expect(loaded.locate(['risk', 'cooldown'])).toBe('config/paper-sim.yaml:31:3');
    expect(() => loadDeployment('config/paper-sim.yaml', { set: [{ path: 'risk.maxOpenPositions', value: -1 }] })).toThrow(
      /--set risk\.maxOpenPositions risk\.maxOpenPositions: expected/,
    );
  });

  it('picks a strategy by its own id (no id: in the file) once the ids are known, and lists the names it knows otherwise', async () => {
    const file = 'config/paper-custom.yaml';
    const ids = await strategyIdsOf(file);
    expect(ids).toEqual(['dip-buyer', 'sniper']);
    const loaded = loadDeployment(file, { set: [{ path: 'strategies[dip-buyer].params.dipBps', value: 3000 }], strategyIds: ids });
    expect(loaded.deployment.strategies[0]?.params).toMatchObject({ dipBps: 3000 });
    expect(() => loadDeployment(file, { set: [{ path: 'strategies[nope].params.dipBps', value: 1 }], strategyIds: ids })).toThrow(
      /no entry \[nope\] in the deployment .*here: dip-buyer, sniper/,
    );
    // a sweep cell resolves the same selector (the sweep hands its workers the ids)
    const text = readFileSync(file, 'utf8');
    const cell = cellDeployment(text, file, { index: 0, params: { 'strategies[dip-buyer].params.dipBps': 4000 } }, undefined, ids);
    expect(cell.deployment.strategies[0]?.params).toMatchObject({ dipBps: 4000 });
  });

  it('backtest --set changes the run: the strategy joins the milestone it was set to', async () => {
    const { recordSimulator } = await import('../../src/research/record/record-sim.js');
    const { createRedactor } = await import('../../src/core/index.js');
    await recordSimulator({
      seed: 5,
      durationMs: 2 * 60_000,
      loaded: loadDeployment('config/paper-sim.yaml'),
      dir: join(dir, 'rec'),
      redactor: createRedactor(),
    });
    const r = cli(
      'backtest',
      'config/paper-sim.yaml',
      '--data',
      join(dir, 'rec'),
      '--out',
      join(dir, 'bt'),
      '--set',
      'strategies[curve-momentum].params.milestonePct=40',
      '--set',
      `telemetry.decisionLog=${join(dir, 'bt.jsonl')}`,
    );
    expect(r.stderr).not.toContain('CLI_');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/venue_a:curve:40 \(1 room\): no frame of this kind in the recording/);
    const bad = cli('backtest', 'config/paper-sim.yaml', '--data', join(dir, 'rec'), '--out', join(dir, 'bt2'), '--set', 'risk.maxOpenPositions');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('CLI_BAD_OPTION');
  }, 120_000);

  it('paper --set changes the run: the deployment runs under the name it was set to, by the own id of a file strategy', () => {
    const r = cli('paper', 'config/paper-custom.yaml', '--duration', '2s', '--set', 'name=set-by-flag', '--set', 'strategies[dip-buyer].params.dipBps=99999');
    // the value reached the strategy's own schema, which refuses it (max 9000) and names the option
    expect(r.status).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(/--set strategies\[dip-buyer\]\.params\.dipBps strategies\.0\.params\.dipBps/);
    const ok = cli(
      'paper',
      'config/paper-custom.yaml',
      '--duration',
      '2s',
      '--set',
      'name=set-by-flag',
      '--set',
      `telemetry.decisionLog=${join(dir, 'p.jsonl')}`,
    );
    expect(ok.stdout).toContain('chainpilot paper: set-by-flag with');
  }, 120_000);
});
