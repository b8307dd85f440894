/**
 * Transaction fees as the Solana runtime charges them: a base fee per required signature plus the
 * prioritization fee `ceil(computeUnitPrice × computeUnitLimit / 1e6)` set by compute-budget
 * instructions. LiteSVM charges the same; the ledger needs the figure for `meta.fee`, for fee-only
 * failures it applies itself (slippage, injected on-chain failure) and for priority-fee statistics.
 */
import type { MessageCompiledInstruction, PublicKey } from '@solana/web3.js';

export const LAMPORTS_PER_SIGNATURE = 5_000n;
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** Default compute-unit limit per non-compute-budget instruction when none is set. */
export const DEFAULT_CU_PER_INSTRUCTION = 200_000n;
export const MAX_CU_LIMIT = 1_400_000n;

export interface ComputeBudget {
  readonly cuLimit: bigint;
  /** Micro-lamports per compute unit. */
  readonly cuPriceMicroLamports: bigint;
}

/** Reads SetComputeUnitLimit (2) and SetComputeUnitPrice (3) from a compiled message. */
export function readComputeBudget(
  keys: readonly PublicKey[],
  instructions: readonly MessageCompiledInstruction[],
): ComputeBudget {
  let limit: bigint | undefined;
  let price = 0n;
  let others = 0n;
  for (const ix of instructions) {
    if (keys[ix.programIdIndex]?.toBase58() !== COMPUTE_BUDGET_PROGRAM) {
      others++;
      continue;
    }
    const data = Buffer.from(ix.data);
    if (data[0] === 2 && data.length >= 5) limit = BigInt(data.readUInt32LE(1));
    else if (data[0] === 3 && data.length >= 9) price = data.readBigUInt64LE(1);
  }
  const cuLimit = limit ?? (others * DEFAULT_CU_PER_INSTRUCTION > MAX_CU_LIMIT ? MAX_CU_LIMIT : others * DEFAULT_CU_PER_INSTRUCTION);
  return { cuLimit, cuPriceMicroLamports: price };
}

/** Prioritization fee in lamports, rounded up. */
export function priorityFeeLamports(budget: ComputeBudget): bigint {
  const p = budget.cuPriceMicroLamports * budget.cuLimit;
  return p % 1_000_000n === 0n ? p / 1_000_000n : p / 1_000_000n + 1n;
}

/** Total fee in lamports for a message with `signatures` required signatures. */
export function transactionFeeLamports(signatures: number, budget: ComputeBudget): bigint {
  return LAMPORTS_PER_SIGNATURE * BigInt(signatures) + priorityFeeLamports(budget);
}
