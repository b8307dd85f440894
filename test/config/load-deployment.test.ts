import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentJsonSchema, effectiveConfigYaml, loadDeployment, parseDeployment } from '../../src/config/index.js';
import { validateDeploymentFile } from '../../src/runtime/shell/validate-deployment.js';
import { modelBlockYaml, type CalibrationFit } from '../../src/research/calibrate/calibrate.js';
import { errorOf } from '../helpers/thrown.js';

const base = `version: 1
name: t
strategies:
  - use: graduation-sniper
`;

describe('deployment config', () => {
  it('applies every default in one place and converts SOL and durations exactly', () => {
    const { deployment } = parseDeployment(`${base}risk:\n  maxTradeSol: "0.123456789"\n  cooldown: 5m\n`, 'd.yaml', { env: {} });
    expect(deployment.risk.maxTradeLamports).toBe(123_456_789n);
    expect(deployment.risk.cooldown).toBe(300_000);
    expect(deployment.paper.startingBalanceLamports).toBe(10_000_000_000n);
    expect(deployment.paper.latency).toBe(250);
    expect(deployment.execution.slippageBps).toBe(300);
    expect(deployment.endpoints).toEqual({});
    expect(Object.isFrozen(deployment.risk)).toBe(true);
  });

  it('rejects an unknown key with file, line, key and the allowed keys', () => {
    const e = errorOf(() => parseDeployment(`${base}risk:\n  maxTradeSol: "1"\n  maxTradSize: 3\n`, 'd.yaml', { env: {} }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain('d.yaml:7:3 risk.maxTradSize: unknown key "maxTradSize"; allowed here: maxTradeSol, maxOpenPositions');
  });

  it('rejects a wrong type with its line and what was expected', () => {
    const e = errorOf(() => parseDeployment(`${base}risk:\n  maxOpenPositions: "five"\n`, 'd.yaml', { env: {} }));
    expect(e.message).toContain('d.yaml:6:3 risk.maxOpenPositions: expected an integer from 1 to 10000; got "five"');
  });

  it('reports all errors at once', () => {
    const e = errorOf(() => parseDeployment(`version: 2\nname: t\nstrategies: []\nrisk:\n  cooldown: soon\n  bogus: 1\n`, 'd.yaml', { env: {} }));
    expect(e.message).toContain('has 4 errors');
    expect(e.message).toContain('d.yaml:1:1 version:');
    expect(e.message).toContain('d.yaml:3:1 strategies: declare at least one strategy');
    expect(e.message).toContain(
      'd.yaml:5:3 risk.cooldown: expected a duration from 0 to 365d (milliseconds, or a whole number with ms, s, m, h or d, such as "30s"); got "soon"',
    );
    expect(e.message).toContain('d.yaml:6:3 risk.bogus: unknown key "bogus"');
  });

  it('names a missing required key at its parent', () => {
    const e = errorOf(() => parseDeployment('version: 1\nstrategies:\n  - use: x\n', 'd.yaml', { env: {} }));
    expect(e.message).toContain('name: required key is missing');
  });

  const remote = (apiKey: string) =>
    `${base}endpoints:\n  remote:\n    baseUrl: https://api.example.invalid\n    datastreamUrl: wss://ws.example.invalid\n    apiKey: ${apiKey}\n`;

  it('substitutes ${ENV} in secret fields and lists the secret for the redactor', () => {
    const loaded = parseDeployment(remote('${CHAIN_KEY}'), 'd.yaml', { env: { CHAIN_KEY: 'sk-live-123456' } });
    expect(loaded.deployment.endpoints.remote?.apiKey).toBe('sk-live-123456');
    expect(loaded.secrets).toContain('sk-live-123456');
    expect(effectiveConfigYaml(loaded.deployment)).not.toContain('sk-live-123456');
    expect(effectiveConfigYaml(loaded.deployment)).toContain('apiKey: "[REDACTED]"');
  });

  it('keeps the SOL keys users write while the runtime reads lamports under lamports names', () => {
    const yaml = `${base}risk:\n  maxTradeSol: "0.2"\n  maxExposureSol: 1\n  maxPerTokenSol: "0.5"\n  dailyLossLimitSol: "0.75"\npaper:\n  assumedDepthSol: "50"\nlive:\n  maxTradeSpendSol: "0.25"\n  maxDaySpendSol: 2\n`;
    const { deployment: d } = parseDeployment(yaml, 'd.yaml', { env: {} });
    expect([d.risk.maxTradeLamports, d.risk.maxExposureLamports, d.risk.maxPerTokenLamports, d.risk.dailyLossLimitLamports]).toEqual([
      200_000_000n,
      1_000_000_000n,
      500_000_000n,
      750_000_000n,
    ]);
    expect([d.paper.startingBalanceLamports, d.paper.assumedDepthLamports]).toEqual([10_000_000_000n, 50_000_000_000n]);
    expect([d.live.maxTradeSpendLamports, d.live.maxDaySpendLamports, d.live.simulatorFundLamports]).toEqual([250_000_000n, 2_000_000_000n, 10_000_000_000n]);
    expect(Object.keys(d.risk).filter((k) => k.endsWith('Sol'))).toEqual([]);
    // the effective config speaks the file's language again, and parses back to the same deployment
    const text = effectiveConfigYaml(d);
    expect(text).toContain('maxTradeSol: "0.2"');
    expect(text).toContain('startingBalanceSol: "10"');
    expect(text).toContain('maxDaySpendSol: "2"');
    expect(text).not.toMatch(/Lamports: "/);
    expect(parseDeployment(text, 'effective.yaml', { env: {} }).deployment.risk).toEqual(d.risk);
  });

  it('names the missing environment variable, the key and its line', () => {
    const e = errorOf(() => parseDeployment(remote('${CHAIN_KEY}'), 'd.yaml', { env: {} }));
    expect(e.message).toContain('d.yaml:9:5 endpoints.remote.apiKey: environment variable CHAIN_KEY is not set; export CHAIN_KEY=... before running');
  });

  it('refuses ${ENV} substitution outside secret fields', () => {
    const e = errorOf(() =>
      parseDeployment(`${base}name2: x\n`.replace('name: t', 'name: ${USER}').replace('name2: x\n', ''), 'd.yaml', { env: { USER: 'me' } }),
    );
    expect(e.message).toContain('d.yaml:2:1 name: ${...} substitution is allowed only in secret fields');
  });

  it('reports YAML syntax errors with their line', () => {
    const e = errorOf(() => parseDeployment('version: 1\nname: [unclosed\n', 'd.yaml'));
    expect(e.code).toBe('CONFIG_YAML_SYNTAX');
    expect(e.message).toMatch(/d\.yaml:\d+:\d+/);
  });

  it('ships example deployments that validate as shipped', async () => {
    for (const f of ['config/paper-sim.yaml', 'config/paper-remote.yaml', 'config/paper-custom.yaml']) {
      const r = await validateDeploymentFile(f, { CHAIN_API_KEY: 'k-123456789', CHAIN_RPC_KEY: 'r-123456789' });
      expect(r, f).toMatchObject({ ok: true });
      expect(r.text).not.toContain('k-123456789');
    }
  });

  it('reports bad strategy parameters and unknown strategies with their lines, never leaking secrets', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const dir = mkdtempSync('/tmp/cp-config-');
    const file = `${dir}/d.yaml`;
    writeFileSync(file, `${base}  - use: curve-momentum\n    params:\n      milestonePct: 500\n  - use: no-such-strategy\n`);
    const r = await validateDeploymentFile(file);
    expect(r.ok).toBe(false);
    expect(r.text).toContain(`${file}:7:7 strategies.1.params.milestonePct: Too big`);
    expect(r.text).toContain(
      `${file}:8:5 strategies.2.use: unknown strategy "no-such-strategy"; built-ins: graduation-sniper, curve-momentum, copy-trader, dca-flow`,
    );
  });

  it('keeps config/deployment.schema.json in step with the schema', () => {
    const committed = JSON.parse(readFileSync('config/deployment.schema.json', 'utf8')) as unknown;
    expect(committed).toEqual(deploymentJsonSchema());
  });

  it('reads paper.model from paper.modelFile (calibrate output, relative to the deployment) and names the field when it cannot', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpilot-modelfile-'));
    try {
      const fit = {
        sources: ['live.decisions.jsonl'],
        fills: 2,
        intents: 2,
        latencyMs: [1200, 3400],
        latencyQuantilesMs: { p10: 1200, p50: 1200, p90: 3400 },
        latencyFrom: { slot: 0, 'block-time': 0, 'decision-log': 2 },
        latencyResolution: '2 from decision logs',
        slotUncertaintyMs: undefined,
        landing: { slotMs: 400, phaseMs: 0, slots: [1, 2], reportMs: [800, 1_200] },
        feeLamports: 110_000n,
        feeRangeLamports: [110_000n, 110_000n],
        rentLamports: 2_039_280n,
        rentBuys: 1,
        simulation: { events: 0, trials: 2, rate: 0, low: 0, high: 0.6 },
        onChain: { events: 1, trials: 2, rate: 0.5, low: 0.1, high: 0.9 },
        slippage: { events: 0, trials: 2, rate: 0, low: 0, high: 0.6 },
      } satisfies CalibrationFit;
      writeFileSync(join(dir, 'model.yaml'), modelBlockYaml(fit));
      writeFileSync(join(dir, 'd.yaml'), `${base}paper:\n  modelFile: model.yaml\n`);
      const m = loadDeployment(join(dir, 'd.yaml'), { env: {} }).deployment.paper.model;
      expect(m).toMatchObject({
        latencyMs: [1200, 3400],
        landing: { slotMs: 400, phaseMs: 0, slots: [1, 2], reportMs: [800, 1200] },
        feeLamports: 110_000,
        rentLamports: 2_039_280,
        ownImpact: true,
        onChainFailureRate: 0.5,
      });
      writeFileSync(join(dir, 'phase.yaml'), 'model:\n  latencyMs: [500]\n  feeLamports: 5000\n  landing: { slotMs: 400, phaseMs: 400, slots: [1] }\n');
      writeFileSync(join(dir, 'd6.yaml'), `${base}paper:\n  modelFile: phase.yaml\n`);
      expect(errorOf(() => loadDeployment(join(dir, 'd6.yaml'), { env: {} })).message).toContain('phaseMs must be below slotMs');
      writeFileSync(
        join(dir, 'pairs.yaml'),
        'model:\n  latencyMs: [500]\n  feeLamports: 5000\n  landing: { slotMs: 400, phaseMs: 0, slots: [1, 2], reportMs: [800] }\n',
      );
      writeFileSync(join(dir, 'd7.yaml'), `${base}paper:\n  modelFile: pairs.yaml\n`);
      expect(errorOf(() => loadDeployment(join(dir, 'd7.yaml'), { env: {} })).message).toContain('reportMs must have one value per slots value');

      writeFileSync(join(dir, 'bare.yaml'), 'model:\n  latencyMs: [500]\n  feeLamports: 5000\n');
      writeFileSync(join(dir, 'd2.yaml'), `${base}paper:\n  modelFile: bare.yaml\n`);
      expect(loadDeployment(join(dir, 'd2.yaml'), { env: {} }).deployment.paper.model).toMatchObject({ latencyMs: [500], feeLamports: 5000 });

      writeFileSync(join(dir, 'd3.yaml'), `${base}paper:\n  modelFile: missing.yaml\n`);
      const missing = errorOf(() => loadDeployment(join(dir, 'd3.yaml'), { env: {} }));
      expect(missing.code).toBe('CONFIG_INVALID');
      expect(missing.message).toContain('paper.modelFile: cannot read');
      expect(missing.message).toContain('missing.yaml (CONFIG_UNREADABLE)');

      writeFileSync(join(dir, 'd4.yaml'), `${base}paper:\n  modelFile: model.yaml\n  model:\n    latencyMs: [1]\n    feeLamports: 1\n`);
      expect(errorOf(() => loadDeployment(join(dir, 'd4.yaml'), { env: {} })).message).toContain('set either paper.model or paper.modelFile, not both');

      writeFileSync(join(dir, 'empty.yaml'), 'nothing: here\n');
      writeFileSync(join(dir, 'd5.yaml'), `${base}paper:\n  modelFile: empty.yaml\n`);
      const e5 = errorOf(() => loadDeployment(join(dir, 'd5.yaml'), { env: {} }));
      expect(e5.code).toBe('CONFIG_INVALID');
      expect(e5.message).toContain('paper.model.nothing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a negative extraSlippageBps beyond the pool fee (paper would beat the pool), naming the key and the floor', () => {
    const e = errorOf(() => parseDeployment(`${base}paper:\n  extraSlippageBps: -150\n`, 'd.yaml', { env: {} }));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain('d.yaml:6:3 paper.extraSlippageBps: -150 would let a paper fill beat the pool');
    expect(e.message).toContain('use -100 or more');
    const m = errorOf(() =>
      parseDeployment(`${base}paper:\n  defaultPoolFeeBps: 25\n  model:\n    latencyMs: [400]\n    feeLamports: 5000\n    extraSlippageBps: -88\n`, 'd.yaml', {
        env: {},
      }),
    );
    expect(m.message).toContain('paper.model.extraSlippageBps: -88 would let a paper fill beat the pool');
    expect(m.message).toContain('use -25 or more');
    // Down to the pool fee is a valid correction.
    expect(parseDeployment(`${base}paper:\n  extraSlippageBps: -100\n`, 'd.yaml', { env: {} }).deployment.paper.extraSlippageBps).toBe(-100);
  });

  it('reports an unreadable file with its path', () => {
    expect(errorOf(() => loadDeployment('/nonexistent/d.yaml'))).toMatchObject({ code: 'CONFIG_UNREADABLE' });
  });
});
