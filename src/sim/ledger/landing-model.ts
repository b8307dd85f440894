/**
 * The landing model: in which slot an accepted transaction lands, drawn in simulated time from the
 * simulator's seed, never from the client's wall time (docs/simulator.md "Landing").
 *
 * Each slot after the one it was accepted in, a transaction is included with chance
 *
 *   fee-less chance  q = quietInclusion × (1 − congestionPenalty × c),  c = min(1, swapsPerSlot / busySwapsPerSlot)
 *   fee share        f = cuPrice / (cuPrice + feeHalfMicroLamports)
 *   chance           p = q + (maxInclusion − q) × f
 *
 * so the delay in slots is 1 + a geometric count of missed slots (mean 1/p). Before that, a
 * transaction is dropped with `dropRate`; one whose delay passes its blockhash's last valid block
 * never lands (it expired). State: none but the random source, drawn once per accepted transaction.
 */
import type { Random } from '../../core/index.js';
import type { LandingSettings } from '../sim-settings.js';

/** What the model decided for one transaction. */
export type LandingDraw = { readonly kind: 'slots'; readonly slots: number } | { readonly kind: 'dropped' } | { readonly kind: 'expired' };

export interface LandingInput {
  /** The transaction's compute-unit price (SetComputeUnitPrice), micro-lamports per CU. */
  readonly cuPriceMicroLamports: bigint;
  /** The market's recent swaps per slot (moving average). */
  readonly swapsPerSlot: number;
  /** Slots its blockhash can still land in (last valid block height minus the height now). */
  readonly slotsLeft: number;
}

export interface LandingModel {
  /** Draws the landing of one accepted transaction. */
  draw(input: LandingInput): LandingDraw;
}

/** The chance per slot that a transaction is included (see the file's comment). */
export function inclusionChance(s: LandingSettings, cuPriceMicroLamports: bigint, swapsPerSlot: number): number {
  const congestion = Math.min(1, Math.max(0, swapsPerSlot) / s.busySwapsPerSlot);
  const feeless = s.quietInclusion * (1 - s.congestionPenalty * congestion);
  const price = Number(cuPriceMicroLamports);
  const share = price / (price + s.feeHalfMicroLamports);
  return feeless + (Math.max(s.maxInclusion, feeless) - feeless) * share;
}

/** Longest delay drawn, in slots: beyond it every blockhash has expired (150 blocks on mainnet). */
const MAX_DRAWN_SLOTS = 10_000;

/** Creates the model on `random` (fork it from the simulator's seed: two runs draw the same). */
export function createLandingModel(settings: LandingSettings, random: Random): LandingModel {
  return {
    draw(input) {
      // Two draws per transaction whatever the outcome, so one transaction's fate never shifts the next's.
      const dropDraw = random.next();
      const delayDraw = random.next();
      if (dropDraw < settings.dropRate) return { kind: 'dropped' };
      const p = inclusionChance(settings, input.cuPriceMicroLamports, input.swapsPerSlot);
      // Inverse transform of the geometric distribution of missed slots: P(missed = k) = (1 − p)^k p.
      const missed = p >= 1 ? 0 : Math.min(MAX_DRAWN_SLOTS, Math.floor(Math.log(1 - delayDraw) / Math.log(1 - p)));
      const slots = 1 + missed;
      if (slots > input.slotsLeft) return { kind: 'expired' };
      return { kind: 'slots', slots };
    },
  };
}
