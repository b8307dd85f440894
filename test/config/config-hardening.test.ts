/**
 * The adversarial cases of issue 11 against the deployment loader and the strategy resolver, as
 * written: each gets a coded error naming the field, its line and the allowed range, or runs as
 * meant. Never an uncoded error, never a stack trace.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDeployment } from '../../src/config/index.js';
import { validateDeploymentFile } from '../../src/runtime/shell/validate-deployment.js';
import { errorOf } from '../helpers/thrown.js';

const base = 'version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\n';

const dir = mkdtempSync(join(tmpdir(), 'cp-hardening-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
async function validate(yaml: string): Promise<{ ok: boolean; text: string }> {
  const file = join(dir, `d${n++}.yaml`);
  writeFileSync(file, yaml);
  const r = await validateDeploymentFile(file, {});
  return { ok: r.ok, text: r.text.replaceAll(file, 'd.yaml') };
}

describe('deployment values that used to be accepted but ran wrong', () => {
  it.each([
    [
      'telemetry:\n  statusInterval: 0\n',
      'd.yaml:6:3 telemetry.statusInterval: expected a duration from 100ms to 1h (milliseconds, or a whole number with ms, s, m, h or d, such as "30s"); got 0',
    ],
    ['telemetry:\n  statusInterval: 30d\n', 'd.yaml:6:3 telemetry.statusInterval: expected a duration from 100ms to 1h'],
    [
      'endpoints:\n  simulator:\n    speed: 1e300\n',
      'd.yaml:7:5 endpoints.simulator.speed: expected a multiple of real time from 0.01 to 1000, or "max"; got 1e+300',
    ],
    [
      'paper:\n  latency: 9999999999999d\n',
      'd.yaml:6:3 paper.latency: expected a duration from 0 to 1m (milliseconds, or a whole number with ms, s, m, h or d, such as "30s"); got "9999999999999d"',
    ],
    [
      'paper:\n  startingBalanceSol: 1e29\n',
      'd.yaml:6:3 paper.startingBalanceSol: expected a SOL amount from 0 to 1000000000 with at most 9 decimals, such as "0.5"; got 1e+29',
    ],
    ['live:\n  drainTimeout: 30d\n', 'd.yaml:6:3 live.drainTimeout: expected a duration from 0 to 1h'],
    ['engine:\n  marketRetention: 10s\n', 'd.yaml:6:3 engine.marketRetention: expected a duration from 1m to 7d'],
    [
      'strategies:\n  - use: graduation-sniper\n    exits:\n      timeStop: 400d\n',
      'd.yaml:8:7 strategies.0.exits.timeStop: expected a duration from 1s to 365d',
    ],
  ])('refuses %j with field, line and range', (extra, expected) => {
    const yaml = extra.startsWith('strategies:') ? `version: 1\nname: t\n\n\n${extra}` : `${base}${extra}`;
    const e = errorOf(() => parseDeployment(yaml, 'd.yaml', { env: {} }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain(expected);
  });

  it('accepts a 30-day time stop and drain of an hour, which the wall clock now honours', () => {
    const { deployment } = parseDeployment(
      `version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\n    exits:\n      timeStop: 30d\nlive:\n  drainTimeout: 1h\n`,
      'd.yaml',
      { env: {} },
    );
    expect(deployment.strategies[0]?.exits?.timeStop).toBe(30 * 86_400_000);
    expect(deployment.live.drainTimeout).toBe(3_600_000);
  });

  it('reads engine.marketRetention (default one hour)', () => {
    expect(
      parseDeployment(`version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\nengine:\n  marketRetention: 90m\n`, 'd.yaml', { env: {} }).deployment
        .engine.marketRetention,
    ).toBe(5_400_000);
    expect(parseDeployment(`version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\n`, 'd.yaml', { env: {} }).deployment.engine.marketRetention).toBe(
      3_600_000,
    );
  });
});

describe('deployment values of the wrong type name the fix', () => {
  it.each([
    ['risk:\n  maxOpenPositions: "six"\n', 'd.yaml:6:3 risk.maxOpenPositions: expected an integer from 1 to 10000; got "six"'],
    ['risk:\n  maxOpenPositions: 100000.5\n', 'd.yaml:6:3 risk.maxOpenPositions: expected an integer from 1 to 10000; got 100000.5'],
    [
      'endpoints:\n  simulator:\n    speed: fast\n',
      'd.yaml:7:5 endpoints.simulator.speed: expected a multiple of real time from 0.01 to 1000, or "max"; got "fast"',
    ],
    ['risk:\n  maxRiskScore: .nan\n', 'd.yaml:6:3 risk.maxRiskScore: expected a number from 0 to 1000000; got NaN'],
    ['risk:\n  minLiquidityUsd: .inf\n', 'd.yaml:6:3 risk.minLiquidityUsd: expected a number from 0 to 1000000000000; got Infinity'],
    ['risk:\n  requireSafetyData: "yes"\n', 'd.yaml:6:3 risk.requireSafetyData: expected boolean; got "yes"'],
  ])('refuses %j', (extra, expected) => {
    const e = errorOf(() => parseDeployment(`${base}${extra}`, 'd.yaml', { env: {} }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain(expected);
  });
});

describe('error messages and secrets', () => {
  it('never echoes a secret field of the wrong type', () => {
    const e = errorOf(() =>
      parseDeployment(
        `${base}endpoints:\n  remote:\n    baseUrl: https://a.example\n    datastreamUrl: wss://a.example\n    apiKey: 987654321987\n`,
        'd.yaml',
        { env: {} },
      ),
    );
    expect(e.message).toContain('d.yaml:9:5 endpoints.remote.apiKey: expected string; got "[REDACTED]"');
    expect(e.message).not.toContain('987654321987');
  });
});

describe('YAML that used to crash the loader', () => {
  it('names a duplicate key and its line', () => {
    const e = errorOf(() => parseDeployment(`${base}risk:\n  cooldown: 5m\n  cooldown: 6m\n`, 'd.yaml', { env: {} }));
    expect(e.code).toBe('CONFIG_YAML_SYNTAX');
    expect(e.message).toContain('d.yaml:7:3 duplicate key "cooldown"');
  });

  it('refuses an alias bomb with a coded error instead of a ReferenceError', () => {
    const bomb =
      'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n';
    const e = errorOf(() => parseDeployment(`${base}${bomb}`, 'd.yaml', { env: {} }));
    expect(e.code).toBe('CONFIG_YAML_SYNTAX');
    expect(e.message).toContain('d.yaml:6:8 aliases expand too much');
  });

  it('refuses nesting thousands of levels deep with a coded error', () => {
    const e = errorOf(() => parseDeployment(`${base}risk: ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`, 'd.yaml', { env: {} }));
    expect(e.code).toMatch(/^CONFIG_/);
    expect(e.message).toContain('nested too deeply');
    expect(e.message).not.toMatch(/\n\s+at /);
  });
});

describe('strategies named after Object.prototype members and unknown parameters', () => {
  it.each(['constructor', 'hasOwnProperty', '__proto__', 'toString'])('reports use: %s as an unknown strategy', async (name) => {
    const r = await validate(`version: 1\nname: t\nstrategies:\n  - use: ${name}\n`);
    expect(r.ok).toBe(false);
    expect(r.text).toContain(`STRATEGY_UNKNOWN: d.yaml has 1 strategy error:\n  - d.yaml:4:5 strategies.0.use: unknown strategy "${name}"`);
  });

  it('refuses a strategy buy size beyond the SOL supply with the key and line', async () => {
    const r = await validate(`${base}    params:\n      buySol: 1e29\n`);
    expect(r.text).toContain('d.yaml:6:7 strategies.0.params.buySol: expected a positive SOL amount up to 1000000000 with at most 9 decimals');
    const huge = await validate(`${base}    params:\n      buySol: "100000000000000000000"\n`);
    expect(huge.text).toContain('d.yaml:6:7 strategies.0.params.buySol: expected a positive SOL amount up to 1000000000');
  });

  it('lists the allowed parameters and points at the unknown key', async () => {
    const r = await validate(`${base}    params:\n      buySol: "0.1"\n      maxEntryDelay: 5\n`);
    expect(r.ok).toBe(false);
    expect(r.text).toContain(
      'd.yaml:7:7 strategies.0.params.maxEntryDelay: unknown key "maxEntryDelay" (did you mean "maxEntryDelayMs"?); allowed here: buySol, maxEntryDelayMs, markets',
    );
  });
});
