/**
 * Validation in one pass (issue 41): the file's own problems and its strategies' problems in one
 * report, each with a "did you mean" when a known name is close; duration parameters that take
 * "30s"; a missing strategy file named as the user wrote it; room names checked and echoed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closestName } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { resolveStrategies } from '../../src/runtime/compose/resolve-strategies.js';
import { validateDeploymentFile } from '../../src/runtime/shell/validate-deployment.js';
import * as strategyApi from '../../src/strategies/api.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-onepass-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DIP = resolve('config/strategies/dip-buyer.ts');

function deployment(name: string, strategies: string, risk = '  maxTradeSol: "0.5"'): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `version: 1\nname: ${name}\nendpoints:\n  simulator: { seed: 1 }\nstrategies:\n${strategies}\nrisk:\n${risk}\n`);
  return file;
}

describe('validation in one pass', () => {
  it('reports the file keys and the strategy parameters together, each typo with the name it meant', async () => {
    const file = deployment(
      'both',
      [
        `  - use: ${DIP}`,
        '    params: { buySol: "0.05", minHolder: 3, dipBps: 50 }',
        '  - use: curve-momentum',
        '    params: { milestonePct: 150 }',
        '  - use: curve-momentun',
      ].join('\n'),
      '  maxTradSol: "0.5"',
    );
    const r = await validateDeploymentFile(file);
    expect(r.ok).toBe(false);
    expect(r.code).toBe('CONFIG_INVALID');
    expect(r.text).toContain(`${file} has 5 errors:`);
    expect(r.text).toMatch(/strategies\.0\.params\.minHolder: unknown key "minHolder" \(did you mean "minHolders"\?\); allowed here: /);
    expect(r.text).toMatch(/strategies\.0\.params\.dipBps: .*got 50/);
    expect(r.text).toMatch(/strategies\.1\.params\.milestonePct: /);
    expect(r.text).toMatch(/strategies\.2\.use: unknown strategy "curve-momentun" \(did you mean "curve-momentum"\?\); built-ins: /);
    expect(r.text).toMatch(/risk\.maxTradSol: unknown key "maxTradSol" \(did you mean "maxTradeSol"\?\)/);
    // sorted by line: the strategies (lines 6-10) before risk (line 12)
    expect(r.text.indexOf('minHolder')).toBeLessThan(r.text.indexOf('maxTradSol'));
  });

  it('offers a name only when it is within a typo', () => {
    expect(closestName('minVolumSol', ['minVolumeSol', 'maxVolumeSol', 'buySol'])).toBe('minVolumeSol');
    expect(closestName('cooldwn', ['cooldown', 'maxTradeSol'])).toBe('cooldown');
    expect(closestName('slippage', ['maxTradeSol', 'cooldown'])).toBeUndefined();
  });

  it('takes "30s" for a strategy parameter declared as a duration, and still refuses a bad one with the key', async () => {
    const ok = loadDeployment(
      deployment('dur', '  - use: curve-momentum\n    params: { confirmMs: "30s" }\n  - use: graduation-sniper\n    params: { maxEntryDelayMs: 45000 }'),
    );
    const [cm, gs] = await resolveStrategies(ok);
    expect(cm?.params).toMatchObject({ confirmMs: 30_000 });
    expect(gs?.params).toMatchObject({ maxEntryDelayMs: 45_000 });
    const bad = loadDeployment(deployment('durbad', '  - use: curve-momentum\n    params: { confirmMs: "soon" }'));
    await expect(resolveStrategies(bad)).rejects.toMatchObject({
      code: 'STRATEGY_INVALID_PARAMS',
      message: expect.stringMatching(/strategies\.0\.params\.confirmMs: expected a duration .* such as "30s"\); got "soon"/),
    });
  });

  it('names a missing strategy file as the user wrote it, with no path inside chainpilot', async () => {
    const r = await validateDeploymentFile(deployment('missing', '  - use: ./strategies/nope.ts'));
    expect(r.ok).toBe(false);
    expect(r.text).toContain('strategy file ./strategies/nope.ts does not exist');
    expect(r.text).toContain(`looked for ${join(dir, 'strategies/nope.ts')}`);
    expect(r.text).not.toMatch(/dist\/|src\/runtime/);
  });
});

describe('room names', () => {
  it('exports the builders from chainpilot/strategy, and refuses a name with a value left out, echoing it', () => {
    expect(strategyApi.rooms.price('Mint111')).toBe('price:token:Mint111');
    expect(() => strategyApi.checkRoomName('price:token:')).toThrow(/room "price:token:" has an empty segment/);
    expect(() => strategyApi.checkRoomName('holders:a b')).toThrow(/room "holders:a b" contains whitespace/);
    expect(() => strategyApi.rooms.holders('')).toThrow(/token: "" is not a valid room segment/);
    expect(strategyApi.checkRoomName(strategyApi.rooms.holders('Mint111'))).toBe('holders:Mint111');
  });
});
