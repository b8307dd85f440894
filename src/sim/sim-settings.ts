/**
 * Knobs of the synthetic market, validated once and frozen. Every default is chosen so that one
 * simulated hour at the default seed yields hundreds of launches and tens of graduations.
 */
import { z } from 'zod';
import { ChainpilotError } from '../core/index.js';

export const marketSettingsSchema = z
  .object({
    /** Mean token launches per simulated hour (Poisson). */
    launchesPerHour: z.number().positive().max(100_000).default(300),
    /** Share of launches that attract enough buying to complete their curve. */
    runnerShare: z.number().min(0).max(1).default(0.1),
    /** Share of launches whose deployer and insiders dump everything (rug). */
    rugShare: z.number().min(0).max(1).default(0.15),
    /** Share of launches bought by bundlers in the launch transaction. */
    bundledShare: z.number().min(0).max(1).default(0.3),
    /** Fixed SOL price in USD (USD figures derive exactly from lamports through it). */
    solUsd: z.number().positive().default(150),
    /** EUR per USD for `currency=eur`. */
    eurPerUsd: z.number().positive().default(0.92),
    /** Simulated milliseconds per model step (one slot). */
    slotMs: z.number().int().min(50).max(5_000).default(400),
    /** Synthetic trader population sizes. */
    retailWallets: z.number().int().min(10).max(100_000).default(600),
    botWallets: z.number().int().min(0).max(10_000).default(30),
    sniperWallets: z.number().int().min(0).max(10_000).default(20),
    bundlerWallets: z.number().int().min(0).max(10_000).default(24),
    kolWallets: z.number().int().min(0).max(1_000).default(12),
    lpWallets: z.number().int().min(1).max(1_000).default(8),
    /** Prediction-market events and up/down window length. */
    predictionEvents: z.number().int().min(0).max(50).default(3),
    cryptoWindowMs: z.number().int().min(10_000).default(300_000),
    /** Most recent trades kept per token (older rows fall off REST history). */
    maxTradesPerToken: z.number().int().min(100).default(50_000),
    /** Trade rows older than this leave REST history and candles (each token keeps its last 200), so long runs stay bounded. */
    tradeRetentionMs: z
      .number()
      .int()
      .min(600_000)
      .default(3 * 3_600_000),
    /**
     * How often trade and liquidity rows past `tradeRetentionMs` are dropped (simulated ms; default
     * once an hour). Between two prunes the rows of that long pile up on top
     * of the retention: pruned hourly, 1 h of retention holds up to 2 h of rows.
     */
    tradePruneEveryMs: z.number().int().min(60_000).max(3_600_000).default(3_600_000),
    /** A token that stopped trading leaves the market (REST, PnL, DCA) this long afterwards. */
    tokenRetentionMs: z
      .number()
      .int()
      .min(600_000)
      .default(6 * 3_600_000),
    /** Most recent liquidity actions kept per token (older rows fall off REST history, like trades). */
    maxLiquidityPerToken: z.number().int().min(10).default(2_000),
    /** FIFO lots kept per wallet and token in the PnL book; beyond it the two oldest merge (cost basis stays exact). */
    maxLotsPerPosition: z.number().int().min(2).default(64),
    /** Retired tokens remembered so REST history of them answers empty pages instead of 404 (oldest forgotten first). */
    maxRetiredTokens: z.number().int().min(0).default(20_000),
    /** Distinct deployer wallets kept for re-use by new launches (oldest dropped first). */
    maxDeployers: z.number().int().min(1).default(2_000),
    /**
     * Lighthouse activity stays in one-minute buckets (each with its set of wallets) this long, then
     * merges into hourly buckets (kept 48 h). The 5 m and 1 h windows need 2 h of minutes; the 6 h
     * window is exact to the minute only with 12 h (the default), else it starts on an hour.
     */
    activityMinuteDetailMs: z
      .number()
      .int()
      .min(2 * 3_600_000)
      .max(48 * 3_600_000)
      .default(12 * 3_600_000),
    /** Settled up/down prediction events kept (with their markets) for REST; older ones are forgotten first. */
    maxSettledPredictionEvents: z.number().int().min(1).default(500),
  })
  .strict();

export type MarketSettings = z.infer<typeof marketSettingsSchema>;

/** Parses market settings, failing with SIM_INVALID_SETTINGS naming the field. */
export function parseMarketSettings(input: unknown): MarketSettings {
  const r = marketSettingsSchema.safeParse(input ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue?.path.join('.') ?? '(root)';
    throw new ChainpilotError('SIM_INVALID_SETTINGS', `simulator market setting ${field}: ${issue?.message ?? 'invalid'}; fix or remove it`, {
      retry: 'not_retryable',
      context: { field },
    });
  }
  return Object.freeze(r.data);
}

/**
 * The landing model of the simulator's ledger (src/sim/ledger/landing-model.ts; docs/simulator.md
 * "Landing"): each accepted transaction is included in one of the next slots with a per-slot chance
 * set by its priority fee and the market's activity, or dropped, or never included before its
 * blockhash expires. Drawn from the simulator's seed, in simulated time.
 */
export const landingSettingsSchema = z
  .object({
    /** Chance per slot that a transaction paying no priority fee is included while the market is quiet. */
    quietInclusion: z.number().gt(0).max(1).default(0.6),
    /** Share of that chance lost when the market is at `busySwapsPerSlot` or above (0: activity never delays). */
    congestionPenalty: z.number().min(0).lt(1).default(0.7),
    /** Market-wide swaps per slot (moving average) at which the congestion is full. */
    busySwapsPerSlot: z.number().positive().default(20),
    /** Chance per slot that a transaction paying a very high priority fee is included, whatever the activity. */
    maxInclusion: z.number().gt(0).max(1).default(0.95),
    /** Compute-unit price (micro-lamports per CU) that earns half the way from the fee-less chance to `maxInclusion`. */
    feeHalfMicroLamports: z.number().int().positive().default(100_000),
    /** Chance that an accepted transaction is dropped by the leader and never lands (the client's rebroadcasts of it change nothing). */
    dropRate: z.number().min(0).max(1).default(0.01),
  })
  .strict()
  .refine((s) => s.maxInclusion >= s.quietInclusion, { message: 'maxInclusion must be at least quietInclusion', path: ['maxInclusion'] });

export type LandingSettings = z.infer<typeof landingSettingsSchema>;

/** Parses landing settings, failing with SIM_INVALID_SETTINGS naming the field. */
export function parseLandingSettings(input: unknown): LandingSettings {
  const r = landingSettingsSchema.safeParse(input ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = `landing.${issue?.path.join('.') ?? ''}`;
    throw new ChainpilotError('SIM_INVALID_SETTINGS', `simulator setting ${field}: ${issue?.message ?? 'invalid'}; fix or remove it`, {
      retry: 'not_retryable',
      context: { field },
    });
  }
  return Object.freeze(r.data);
}
