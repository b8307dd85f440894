/**
 * Maps a deployment to the paper executor's settings: the fill model under `paper:` and the live
 * rails under `live:` (the same caps the live executor admits intents by). One function, so a paper
 * run, `record` and a backtest build the same paper executor from the same file.
 */
import { lamports, seededRandom } from '../../core/index.js';
import type { Deployment } from '../../config/index.js';
import type { AdmissionLimits } from '../../executors/admission.js';
import type { PaperExecutorOptions } from '../../executors/paper/paper-executor.js';

/** No cap: what a missing `live.maxTradeSpendSol` / `maxDaySpendSol` means on paper. */
const UNCAPPED = 2n ** 127n;

/** The live caps paper applies: those the file sets under `live:`, none when it sets neither. */
export function paperRails(d: Deployment): AdmissionLimits | undefined {
  const trade = d.live.maxTradeSpendLamports;
  const day = d.live.maxDaySpendLamports;
  if (trade === undefined && day === undefined) return undefined;
  return { maxTradeLamports: trade ?? UNCAPPED, maxDayLamports: day ?? UNCAPPED };
}

/**
 * Paper executor settings of deployment `d` (clock and market come from the composition root).
 * `seed` is the run's engine seed: the calibrated model draws latencies and failures from a
 * generator of its own derived from it, so a backtest with the same seed draws the same.
 */
export function paperExecutorSettings(
  d: Deployment,
  seed: number,
): Pick<PaperExecutorOptions, 'latencyMs' | 'manualHoldMs' | 'fillModel' | 'rails' | 'model' | 'random'> {
  const rails = paperRails(d);
  const m = d.paper.model;
  return {
    latencyMs: d.paper.latency,
    manualHoldMs: d.paper.manualHold,
    fillModel: {
      extraSlippageBps: m?.extraSlippageBps ?? d.paper.extraSlippageBps,
      defaultPoolFeeBps: d.paper.defaultPoolFeeBps,
      networkFeeLamports: lamports(BigInt(d.paper.networkFeeLamports)),
      priorityFeeCapLamports: lamports(BigInt(d.paper.priorityFeeCapLamports)),
      assumedDepthLamports: d.paper.assumedDepthLamports,
      ...(m
        ? {
            feeLamports: lamports(BigInt(m.feeLamports)),
            curveReserves: true,
            ...(m.graduatedExtraSlippageBps === undefined ? {} : { graduatedExtraSlippageBps: m.graduatedExtraSlippageBps }),
          }
        : {}),
    },
    ...(rails ? { rails } : {}),
    ...(m
      ? {
          model: {
            latencyMs: m.latencyMs,
            ...(m.landing ? { landing: m.landing } : {}),
            rentLamports: lamports(BigInt(m.rentLamports)),
            ownImpact: m.ownImpact,
            simulationFailureRate: m.simulationFailureRate,
            onChainFailureRate: m.onChainFailureRate,
          },
          random: seededRandom(seed).fork('paper-fills'),
        }
      : {}),
  };
}
