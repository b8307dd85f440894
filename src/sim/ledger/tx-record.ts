/**
 * What the ledger remembers about every transaction it accepted: never forgotten within a run, so
 * identical bytes sent again can never execute twice, and history-searching status queries answer
 * for the whole run.
 */
import type { TxErrorJson } from './tx-error.js';

export interface TokenBalanceJson {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner: string;
  readonly programId: string;
  readonly uiTokenAmount: {
    readonly amount: string;
    readonly decimals: number;
    readonly uiAmount: number | null;
    readonly uiAmountString: string;
  };
}

export interface LandedMeta {
  readonly fee: bigint;
  readonly err: TxErrorJson | null;
  readonly preBalances: readonly bigint[];
  readonly postBalances: readonly bigint[];
  readonly preTokenBalances: readonly TokenBalanceJson[];
  readonly postTokenBalances: readonly TokenBalanceJson[];
  readonly logMessages: readonly string[];
  readonly computeUnitsConsumed: bigint;
}

export type TxRecord =
  | { readonly state: 'pending'; readonly signature: string; readonly dueSlot: number }
  | { readonly state: 'dropped'; readonly signature: string }
  | {
      readonly state: 'landed';
      readonly signature: string;
      readonly slot: number;
      readonly blockTimeSec: number;
      /** Wire bytes, absent for airdrops (which are credited directly). */
      readonly bytes?: Uint8Array;
      readonly version: 'legacy' | 0;
      readonly meta: LandedMeta;
      readonly finalizeAtOnce: boolean;
      /** Prioritization fee per compute unit, micro-lamports. */
      readonly cuPriceMicroLamports: bigint;
      readonly writableAccounts: readonly string[];
    };

/** A transaction (or airdrop) that landed. */
export type LandedRecord = Extract<TxRecord, { readonly state: 'landed' }>;

export type ConfirmationStatus = 'processed' | 'confirmed' | 'finalized';

const RANK: Record<ConfirmationStatus, number> = { processed: 0, confirmed: 1, finalized: 2 };

/** True when `have` is at least as strong as `want`. */
export function commitmentReached(have: ConfirmationStatus, want: ConfirmationStatus): boolean {
  return RANK[have] >= RANK[want];
}
