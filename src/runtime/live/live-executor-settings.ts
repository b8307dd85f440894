/**
 * Maps a deployment to the live executor's settings: the caps and programs under `live:` and the
 * rebuild, fee and inspection policy under `execution:`. One function, so every live composition
 * root (run, daemon, workers) hands the executor the same settings from the same file.
 */
import type { Deployment } from '../../config/schema.js';
import type { LiveSettingsInput } from '../../executors/live/live-settings.js';

/** Live executor settings of deployment `d` (knobs the file does not set keep the executor's defaults). */
export function liveExecutorSettings(d: Deployment): LiveSettingsInput {
  const e = d.execution;
  return {
    maxTradeLamports: d.live.maxTradeSpendLamports ?? 0n,
    maxDayLamports: d.live.maxDaySpendLamports ?? 0n,
    allowedPrograms: d.live.allowedPrograms,
    commitment: d.live.commitment,
    pollMs: d.live.statusPoll,
    maxAttempts: e.retries + 1,
    inspection: e.inspection,
    ...(e.slippageRamp ? { slippageStepBps: e.slippageRamp.stepBps, maxSlippageBps: e.slippageRamp.maxBps } : { slippageStepBps: 0 }),
    ...(e.priorityFee
      ? {
          priorityFee: {
            percentile: e.priorityFee.percentile,
            capLamports: BigInt(e.priorityFee.capLamports ?? e.priorityFeeLamports),
            computeUnits: e.priorityFee.computeUnits,
          },
        }
      : {}),
  };
}
