/** Knobs of the live executor, with conservative defaults resolved once and frozen. */
import type { InspectionMode } from './inspect.js';
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
  /** Slippage added per rebuild (bps, default 100). */
  readonly slippageStepBps: number;
  /** Ceiling of the slippage ramp (bps, default 1500); the intent's own slippage is never lowered. */
  readonly maxSlippageBps: number;
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
}

export type LiveSettingsInput = Pick<LiveSettings, 'maxTradeLamports' | 'maxDayLamports'> & Partial<LiveSettings>;

/** Fills defaults and freezes. */
export function resolveLiveSettings(input: LiveSettingsInput): LiveSettings {
  return Object.freeze({
    allowedPrograms: [],
    rentBudgetLamports: 2_039_280n,
    commitment: 'confirmed' as const,
    pollMs: 400,
    rebroadcastMs: 1_500,
    blockhashValidityBlocks: 150,
    expiryMarginBlocks: 10,
    maxAttempts: 3,
    slippageStepBps: 100,
    maxSlippageBps: 1_500,
    maxIntentAgeMs: 60_000,
    maxRebuildAgeMs: 300_000,
    buildTries: 3,
    inspection: 'simulate' as const,
    ...input,
  });
}

/** Slippage of attempt `n` (0-based): the intent's own, ramped by a step per rebuild, capped. */
export function slippageForAttempt(intentBps: number, n: number, s: Pick<LiveSettings, 'slippageStepBps' | 'maxSlippageBps'>): number {
  if (n === 0) return intentBps;
  return Math.max(intentBps, Math.min(intentBps + n * s.slippageStepBps, s.maxSlippageBps));
}
