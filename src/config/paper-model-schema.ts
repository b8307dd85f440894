/**
 * `paper.model`: the fill model calibrated from live runs (`chainpilot calibrate`, docs/backtesting.md);
 * absent: the fixed model of `paper`. Present, it replaces the latency and fees and adds rent, our own
 * price impact and failures at the live rates, and with `landing` lands each fill at a slot start.
 */
import { z } from 'zod';
import { CONFIG_LIMITS, type LimitedKey } from './limits.js';

/** An integer within the key's limits. */
const intIn = (key: LimitedKey): z.ZodNumber => z.number().int().min(CONFIG_LIMITS[key].min).max(CONFIG_LIMITS[key].max);
/** A finite number within the key's limits. */
const numIn = (key: LimitedKey): z.ZodNumber => z.number().min(CONFIG_LIMITS[key].min).max(CONFIG_LIMITS[key].max);

export const paperModelSchema = z
  .strictObject({
    /** Live decision-to-fill latencies (ms): each fill waits one of them, drawn with the run's seed. */
    latencyMs: z.array(intIn('paper.model.latencyMs[]')).min(1).max(100_000),
    /**
     * Landing at slot starts (`calibrate` from journals with landing slots): each fill draws a slot
     * count in place of a latency and lands at the start of that slot after the decision's.
     */
    landing: z
      .strictObject({
        slotMs: intIn('paper.model.landing.slotMs'),
        /** Slot starts lie at this many ms modulo slotMs on the run clock (Unix ms). */
        phaseMs: intIn('paper.model.landing.phaseMs'),
        slots: z.array(intIn('paper.model.landing.slots[]')).min(1).max(100_000),
        /** When live heard of each landing, from the decision (ms), paired with `slots` by index: the fill is reported then. */
        reportMs: z.array(intIn('paper.model.landing.reportMs[]')).max(100_000).optional(),
      })
      .refine((l) => l.phaseMs < l.slotMs, { message: 'phaseMs must be below slotMs (a phase modulo the slot time)', path: ['phaseMs'] })
      .refine((l) => l.reportMs === undefined || l.reportMs.length === l.slots.length, {
        message: 'reportMs must have one value per slots value (they are drawn in pairs)',
        path: ['reportMs'],
      })
      .optional(),
    /** Fee live pays per transaction (base plus priority fee), lamports. */
    feeLamports: intIn('paper.model.feeLamports'),
    /** Rent of each token account a buy creates (the first buy of a token), lamports. */
    rentLamports: intIn('paper.model.rentLamports').default(0),
    /** Our own fills move the reserves we observe until the next observed tick. */
    ownImpact: z.boolean().default(true),
    /** Share of intents refused when the transaction is simulated (LIVE_INSPECTION_SIMULATION). */
    simulationFailureRate: numIn('paper.model.simulationFailureRate').default(0),
    /** Share of sent transactions that fail on chain, fee paid (LIVE_FAILED_ON_CHAIN). */
    onChainFailureRate: numIn('paper.model.onChainFailureRate').default(0),
    /** The calibration's second stage (`calibrate --against`): replaces `paper.extraSlippageBps` when set. */
    extraSlippageBps: intIn('paper.model.extraSlippageBps').optional(),
    /** The second stage's extra slippage of fills in graduated pools, fitted apart (`calibrate --against --data`); else `extraSlippageBps`. */
    graduatedExtraSlippageBps: intIn('paper.model.graduatedExtraSlippageBps').optional(),
  })
  .optional();
