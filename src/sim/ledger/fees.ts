/**
 * Transaction fees as the Solana runtime charges them: a base fee per required signature plus the
 * prioritization fee `ceil(computeUnitPrice × computeUnitLimit / 1e6)` set by compute-budget
 * instructions. LiteSVM charges the same; the ledger needs the figure for `meta.fee`, for fee-only
 * failures it applies itself (slippage, injected on-chain failure) and for priority-fee statistics.
 */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** Default compute-unit limit per instruction when none is set: builtins get 3,000 (SIMD-0170), others 200,000. */
export const DEFAULT_CU_PER_INSTRUCTION = 200_000n;
export const DEFAULT_CU_PER_BUILTIN = 3_000n;
const BUILTINS = new Set([
  '11111111111111111111111111111111',
  'ComputeBudget111111111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'AddressLookupTab1e1111111111111111111111111',
]);

export const MAX_CU_LIMIT = 1_400_000n;

export interface ComputeBudget {
  readonly cuLimit: bigint;
  /** Micro-lamports per compute unit. */
  readonly cuPriceMicroLamports: bigint;
}

/** Reads SetComputeUnitLimit (2) and SetComputeUnitPrice (3) from a compiled message (`keys` in base58). */
export function readComputeBudget(
  keys: readonly string[],
  instructions: readonly { readonly programIdIndex: number; readonly data: Uint8Array }[],
): ComputeBudget {
  let limit: bigint | undefined;
  let price = 0n;
  let defaultLimit = 0n;
  for (const ix of instructions) {
    const program = keys[ix.programIdIndex] ?? '';
    defaultLimit += BUILTINS.has(program) ? DEFAULT_CU_PER_BUILTIN : DEFAULT_CU_PER_INSTRUCTION;
    if (program !== COMPUTE_BUDGET_PROGRAM) continue;
    const data = Buffer.from(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (data[0] === 2 && data.length >= 5) limit = BigInt(data.readUInt32LE(1));
    else if (data[0] === 3 && data.length >= 9) price = data.readBigUInt64LE(1);
  }
  const cuLimit = limit ?? (defaultLimit > MAX_CU_LIMIT ? MAX_CU_LIMIT : defaultLimit);
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
