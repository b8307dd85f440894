/** Knobs of the live executor, with conservative defaults resolved once and frozen. */
import { ChainpilotError } from '../../core/errors.js';
import type { InspectionMode } from './inspect.js';
import type { PriorityFeePolicy } from './priority-fee.js';
import type { Commitment } from './ports.js';

export interface LiveSettings {
  /** Largest SOL outflow one intent may cause (amount for a buy, plus fee budget), lamports. */
  readonly maxTradeLamports: bigint;
  /** Largest SOL outflow of all accepted intents of one UTC day, lamports. */
  readonly maxDayLamports: bigint;
  /** Venue program ids a swap may call, in addition to compute budget, system, token and ATA programs. */
  readonly allowedPrograms: readonly string[];
  /** Lamports a swap may spend on rent for accounts it opens (default: one token account). */
  readonly rentBudgetLamports: bigint;
  /** Commitment a landing must reach (default `confirmed`). */
  readonly commitment: Commitment;
  /** Status poll interval, ms (default 400). */
  readonly pollMs: number;
  /** Re-broadcast interval of the same signed bytes, ms (default 1500, within 1–2 s). */
  readonly rebroadcastMs: number;
  /** Blocks a blockhash stays valid after the height read right after building (default 150). */
  readonly blockhashValidityBlocks: number;
  /** Extra blocks past the expiry before the deciding history query (default 10). */
  readonly expiryMarginBlocks: number;
  /** Transactions one intent may have in total (1 = never rebuild after an expiry; default 3). */
  readonly maxAttempts: number;
  /** Slippage added per rebuild (bps, default 0: the ramp is off and every rebuild keeps the intent's slippage). */
  readonly slippageStepBps: number;
  /** Ceiling of the slippage ramp (bps, default 1500); the intent's own slippage is never lowered. */
  readonly maxSlippageBps: number;
  /** Priority fee from recent fees at a percentile, capped; absent: the intent's own budget. */
  readonly priorityFee?: PriorityFeePolicy;
  /** An intent older than this is not built a first time (e.g. found NEW at start-up; default 60 000 ms). */
  readonly maxIntentAgeMs: number;
  /** An expired intent older than this is not rebuilt; it ends EXPIRED (default 300 000 ms). */
  readonly maxRebuildAgeMs: number;
  /** Build tries for a retryable swap-service error (default 3). */
  readonly buildTries: number;
  /**
   * `simulate` (default): instruction checks plus the RPC simulation's balance comparison;
   * `static`: instruction checks only, no simulation round trip (see docs/executor.md).
   */
  readonly inspection: InspectionMode;
  /** Refuse intents without a reference price (LIVE_NO_REFERENCE_PRICE); default false: they accept any output >= 1. */
  readonly requireReferencePrice: boolean;
}

export type LiveSettingsInput = Pick<LiveSettings, 'maxTradeLamports' | 'maxDayLamports'> & Partial<LiveSettings>;

const invalid = (field: string, why: string): ChainpilotError =>
  new ChainpilotError('LIVE_INVALID_SETTINGS', `settings.${field}: ${why}`, { retry: 'not_retryable', context: { field } });

/** Fills defaults, checks the rebuild and fee policy, and freezes. */
export function resolveLiveSettings(input: LiveSettingsInput): LiveSettings {
  const s = resolveDefaults(input);
  if (!Number.isInteger(s.maxAttempts) || s.maxAttempts < 1) throw invalid('maxAttempts', `must be an integer >= 1 (1 = never rebuild); got ${s.maxAttempts}`);
  if (!Number.isInteger(s.slippageStepBps) || s.slippageStepBps < 0)
    throw invalid('slippageStepBps', `must be an integer >= 0 (0 = no ramp); got ${s.slippageStepBps}`);
  if (!Number.isInteger(s.maxSlippageBps) || s.maxSlippageBps < 0 || s.maxSlippageBps > 10_000)
    throw invalid('maxSlippageBps', `must be an integer from 0 to 10000; got ${s.maxSlippageBps}`);
  const fee = s.priorityFee;
  if (fee) {
    if (!(fee.percentile > 0 && fee.percentile <= 100)) throw invalid('priorityFee.percentile', `must be above 0 and at most 100; got ${fee.percentile}`);
    if (fee.capLamports < 0n) throw invalid('priorityFee.capLamports', 'must be >= 0');
    if (!Number.isInteger(fee.computeUnits) || fee.computeUnits < 1 || fee.computeUnits > 1_400_000)
      throw invalid('priorityFee.computeUnits', `must be an integer from 1 to 1400000; got ${fee.computeUnits}`);
  }
  return s;
}

function resolveDefaults(input: LiveSettingsInput): LiveSettings {
  return Object.freeze({
    allowedPrograms: [],
    rentBudgetLamports: 2_039_280n,
    commitment: 'confirmed' as const,
    pollMs: 400,
    rebroadcastMs: 1_500,
    blockhashValidityBlocks: 150,
    expiryMarginBlocks: 10,
    maxAttempts: 3,
    slippageStepBps: 0,
    maxSlippageBps: 1_500,
    maxIntentAgeMs: 60_000,
    maxRebuildAgeMs: 300_000,
    buildTries: 3,
    inspection: 'simulate' as const,
    requireReferencePrice: false,
    ...input,
  });
}

/** Slippage of attempt `n` (0-based): the intent's own, ramped by a step per rebuild, capped. */
export function slippageForAttempt(intentBps: number, n: number, s: Pick<LiveSettings, 'slippageStepBps' | 'maxSlippageBps'>): number {
  if (n === 0) return intentBps;
  return Math.max(intentBps, Math.min(intentBps + n * s.slippageStepBps, s.maxSlippageBps));
}
