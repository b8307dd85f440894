import { describe, expect, it } from 'vitest';
import { loadDeployment, parseDeployment } from '../../src/config/index.js';
import { resolveLiveSettings } from '../../src/executors/live/live-settings.js';
import { liveExecutorSettings } from '../../src/runtime/live/live-executor-settings.js';
import { checkLiveDeployment, liveCapWarnings, missingLimits } from '../../src/runtime/live/live-rails.js';
import { errorOf } from '../helpers/thrown.js';

const base = 'version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\n';

describe('live settings in the deployment config', () => {
  it('leaves mode, network and the executor caps unset by default and resolves the other live defaults', () => {
    const { deployment: d } = parseDeployment(base, 'd.yaml', { env: {} });
    expect(d.mode).toBeUndefined();
    expect(d.network).toBeUndefined();
    expect(d.live).toEqual({ allowedPrograms: [], commitment: 'confirmed', simulatorFundLamports: 10_000_000_000n, drainTimeout: 30_000, statusPoll: 400 });
    expect(missingLimits(d)).toEqual([
      'risk.maxTradeSol',
      'risk.maxOpenPositions',
      'risk.maxExposureSol',
      'risk.dailyLossLimitSol',
      'live.maxTradeSpendSol',
      'live.maxDaySpendSol',
    ]);
  });

  it('converts the executor caps to exact lamports and keeps the allowed programs', () => {
    const { deployment: d } = parseDeployment(
      `${base}mode: live\nnetwork: devnet\nlive:\n  maxTradeSpendSol: "0.250000001"\n  maxDaySpendSol: 3\n  allowedPrograms: [MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr]\n  commitment: finalized\n  drainTimeout: 5s\n`,
      'd.yaml',
      { env: {} },
    );
    expect(d.mode).toBe('live');
    expect(d.network).toBe('devnet');
    expect(d.live.maxTradeSpendLamports).toBe(250_000_001n);
    expect(d.live.maxDaySpendLamports).toBe(3_000_000_000n);
    expect(d.live.allowedPrograms).toEqual(['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr']);
    expect(d.live.commitment).toBe('finalized');
    expect(d.live.drainTimeout).toBe(5_000);
  });

  it('hands live.statusPoll to the live executor as its status poll interval, and refuses one below 20 ms', () => {
    const { deployment: d } = parseDeployment(`${base}live:\n  statusPoll: 150ms\n`, 'd.yaml', { env: {} });
    expect(resolveLiveSettings(liveExecutorSettings(d)).pollMs).toBe(150);
    expect(resolveLiveSettings(liveExecutorSettings(parseDeployment(base, 'd.yaml', { env: {} }).deployment)).pollMs).toBe(400);
    expect(errorOf(() => parseDeployment(`${base}live:\n  statusPoll: 5ms\n`, 'd.yaml', { env: {} })).message).toContain('live.statusPoll');
  });

  it('rejects an unknown network, mode, commitment or live key with its line', () => {
    const e = errorOf(() =>
      parseDeployment(
        `${base}mode: yolo\nnetwork: mainnet\nlive:\n  commitment: processed\n  maxTradeSol: "1"\n  allowedPrograms: ["not an address"]\n`,
        'd.yaml',
        { env: {} },
      ),
    );
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toContain('d.yaml:5:1 mode:');
    expect(e.message).toContain('d.yaml:6:1 network:');
    expect(e.message).toContain('d.yaml:8:3 live.commitment:');
    expect(e.message).toContain('d.yaml:9:3 live.maxTradeSol: unknown key "maxTradeSol"; allowed here: maxTradeSpendSol, maxDaySpendSol');
    expect(e.message).toContain('live.allowedPrograms.0: expected a base58 address');
  });

  it.each(['config/live-sim.yaml', 'config/live-sim-alt.yaml'])('ships %s ready for `run --live`: every rail passes, no cap warning', (file) => {
    const { deployment: d } = loadDeployment(file, { env: {} });
    expect(d.network).toBe('simulator');
    expect(missingLimits(d)).toEqual([]);
    expect(() => checkLiveDeployment(d, { live: true })).not.toThrow();
    expect(liveCapWarnings(d)).toEqual([]);
  });

  it('warns when the per-trade spend cap cannot fit the largest allowed buy plus its fee budget', () => {
    const d = (cap: string) =>
      parseDeployment(
        `${base}risk:\n  maxTradeSol: "0.2"\nexecution:\n  priorityFeeLamports: 100000\nlive:\n  maxTradeSpendSol: "${cap}"\n  maxDaySpendSol: "1"\n`,
        'd.yaml',
        { env: {} },
      ).deployment;
    expect(liveCapWarnings(d('0.200105'))).toEqual([]);
    expect(liveCapWarnings(d('0.3'))).toEqual([]);
    expect(liveCapWarnings(d('0.200104999'))).toEqual([
      expect.stringContaining('live.maxTradeSpendSol (200104999 lamports) is below risk.maxTradeSol plus the fee budget (200105000 lamports)') as unknown,
    ]);
    expect(liveCapWarnings(d('2'))).toEqual(['live.maxDaySpendSol is below live.maxTradeSpendSol: the daily cap binds before the per-trade cap']);
    expect(liveCapWarnings(loadDeployment('config/live-sim.yaml', { env: {} }).deployment)).toEqual([]);
  });
});
