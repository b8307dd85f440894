/**
 * The priority fee of a build: the intent's own budget, or, with a policy, a chosen percentile of
 * the fees recent slots paid (`getRecentPrioritizationFees`, micro-lamports per compute unit)
 * times the compute units a swap is assumed to ask for, capped by the policy's cap and by the
 * intent's budget (which stays the ceiling that spend caps and inspection count). Answers are
 * cached for `ttlMs` on the injected clock; a failed read falls back to the cap and is logged.
 */
import type { Clock } from '../../core/clock.js';
import { ChainpilotError, describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';

export interface PriorityFeePolicy {
  /** Percentile (1–100, nearest rank) of the recent per-slot fees. */
  readonly percentile: number;
  /** Largest fee one transaction may pay, lamports. */
  readonly capLamports: bigint;
  /** Compute units a swap is assumed to ask for (turns the per-unit price into lamports). */
  readonly computeUnits: number;
}

/** The one RPC method the dynamic fee needs (the typed RPC client has it). */
export interface PrioritizationFeesPort {
  getRecentPrioritizationFees(addresses?: readonly string[], opts?: { signal?: AbortSignal }): Promise<readonly { slot: number; prioritizationFee: bigint }[]>;
}

export interface PriorityFeeSource {
  /** Lamports of priority fee for a transaction whose budget is `budgetLamports`. */
  feeFor(budgetLamports: bigint, signal?: AbortSignal): Promise<bigint>;
}

const TTL_MS = 1_000;

/** Nearest-rank percentile of bigint samples (0n when empty). */
export function percentileOf(samples: readonly bigint[], percentile: number): bigint {
  if (samples.length === 0) return 0n;
  const sorted = [...samples].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((percentile / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** A fee source: static (the intent's budget) without a policy, dynamic with one. */
export function createPriorityFeeSource(
  policy: PriorityFeePolicy | undefined,
  rpc: Partial<PrioritizationFeesPort>,
  clock: Clock,
  log: Logger,
): PriorityFeeSource {
  if (!policy) return { feeFor: async (budget) => budget };
  const read = rpc.getRecentPrioritizationFees?.bind(rpc);
  if (!read) {
    throw new ChainpilotError(
      'LIVE_INVALID_SETTINGS',
      'settings.priorityFee needs an RPC port with getRecentPrioritizationFees; pass the typed RPC client or drop priorityFee',
      {
        retry: 'not_retryable',
      },
    );
  }
  let cached: { at: number; lamports: bigint } | undefined;
  const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
  return {
    async feeFor(budget, signal) {
      const now = clock.now();
      if (!cached || now - cached.at >= TTL_MS) {
        try {
          const fees = await read(undefined, signal ? { signal } : {});
          const micro = percentileOf(
            fees.map((f) => f.prioritizationFee),
            policy.percentile,
          );
          cached = { at: now, lamports: (micro * BigInt(policy.computeUnits) + 999_999n) / 1_000_000n };
        } catch (e) {
          if (signal?.aborted) throw e; // stopping is not a failed read
          log.warn({ err: describeError(e) }, 'getRecentPrioritizationFees failed; paying the priority fee cap');
          cached = { at: now, lamports: policy.capLamports };
        }
      }
      return min(min(cached.lamports, policy.capLamports), budget);
    },
  };
}
