/** Typed results of the JSON-RPC client. Lamports are bigint, parsed at the boundary. */
import type { Commitment } from './commitment.js';

export interface RpcContext {
  readonly slot: number;
}

/** A value read at a slot. */
export interface WithContext<T> {
  readonly context: RpcContext;
  readonly value: T;
}

export interface RpcAccount {
  readonly lamports: bigint;
  readonly owner: string;
  readonly data: [string, 'base64'];
  readonly executable: boolean;
  readonly rentEpoch?: number;
}

export interface SignatureStatus {
  readonly slot: number;
  readonly confirmations: number | null;
  readonly err: unknown;
  readonly confirmationStatus: Commitment | null;
}

export interface TokenBalance {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner?: string;
  readonly uiTokenAmount: { readonly amount: string; readonly decimals: number };
}

export interface RpcTransactionMeta {
  readonly fee: bigint;
  readonly err: unknown;
  readonly preBalances: bigint[];
  readonly postBalances: bigint[];
  readonly preTokenBalances: TokenBalance[];
  readonly postTokenBalances: TokenBalance[];
}

export interface RpcTransaction {
  readonly slot: number;
  /** Unix seconds, or null when the node does not know it. */
  readonly blockTime: number | null;
  readonly transaction: [string, 'base64'];
  readonly meta: RpcTransactionMeta | null;
}

export interface SimulationResult {
  readonly err: unknown;
  readonly logs: string[] | null;
  readonly accounts: (RpcAccount | null)[] | null;
  readonly unitsConsumed?: number;
}

export interface PrioritizationFee {
  readonly slot: number;
  /** Micro-lamports per compute unit. */
  readonly prioritizationFee: bigint;
}

export interface KeyedAccount {
  readonly pubkey: string;
  readonly account: RpcAccount;
}

/** One page of an extended (V2) account query. */
export interface AccountsPageV2 {
  readonly accounts: KeyedAccount[];
  /** Total matching accounts, when the service reports it. */
  readonly totalCount?: number;
  /** Cursor for the next page; undefined on the last page. */
  readonly cursor?: string;
  /** The raw result, for undocumented fields. */
  readonly raw: unknown;
}

/** The options bag every RPC method takes last. */
export interface RpcCallOptions {
  readonly signal?: AbortSignal;
}

export interface CommitmentOptions extends RpcCallOptions {
  readonly commitment?: Commitment;
  readonly minContextSlot?: number;
}

/** Account reads always use base64 encoding; `encoding` is accepted for callers that state it. */
export interface AccountReadOptions extends CommitmentOptions {
  readonly encoding?: 'base64';
}
