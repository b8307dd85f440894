/**
 * `chainpilot worker` runs a deployment's intents with the same live settings as every live
 * composition root (it used to map only the caps and programs, so `execution.retries`,
 * `inspection`, `slippageRamp` and `priorityFee` were ignored on workers).
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import { liveExecutorSettings } from '../../src/runtime/live/live-executor-settings.js';
import { workerSettings } from '../../src/runtime/queue/run-worker.js';
import { tempDir, type TempDir } from './helpers.js';

let tmp: TempDir | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

describe('a wallet worker’s live settings', () => {
  it('are the deployment’s execution policy (retries, inspection, slippage ramp, priority fee), as the in-process executor gets them', () => {
    tmp = tempDir('cp-worker-settings-');
    const yaml = readFileSync('config/live-sim.yaml', 'utf8').replace(
      'execution:\n',
      'execution:\n  retries: 5\n  inspection: static\n  slippageRamp: { stepBps: 100, maxBps: 1500 }\n  priorityFee: { percentile: 75, capLamports: 90000, computeUnits: 300000 }\n',
    );
    const d = loadDeployment(tmp.write('live.yaml', yaml)).deployment;
    const s = workerSettings(d);
    expect(s).toEqual(liveExecutorSettings(d));
    expect(s).toMatchObject({ maxAttempts: 6, inspection: 'static', slippageStepBps: 100, maxSlippageBps: 1500 });
    expect(s.priorityFee).toMatchObject({ percentile: 75, capLamports: 90_000n, computeUnits: 300_000 });
    expect(workerSettings(d, { pollMs: 5 })).toMatchObject({ pollMs: 5, maxAttempts: 6 });
  });
});
