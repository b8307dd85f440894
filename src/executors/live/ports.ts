/**
 * Narrow ports of the live executor: only the JSON-RPC and swap methods it calls, with the exact
 * shapes of the real clients (src/client/rpc, src/client/swap) so those satisfy them structurally,
 * and so tests can hand in a small fake chain.
 */
import type { SwapRequest } from '../../client/swap/swap-request.js';
import type { Transaction, VersionedTransaction } from '@solana/web3.js';
import type { Commitment } from '../../client/rpc/commitment.js';

/** Commitment levels, compared by rank with the client's `atLeast`, never by string equality. */
export type { Commitment } from '../../client/rpc/commitment.js';

export interface TokenBalance {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner?: string;
  readonly uiTokenAmount: { readonly amount: string; readonly decimals: number };
}

export interface SignatureStatus {
  readonly slot: number;
  readonly confirmations: number | null;
  readonly err: unknown;
  readonly confirmationStatus: Commitment | null;
}

/** An account as JSON-RPC returns it in base64 encoding (lamports exact). */
export interface RpcAccount {
  readonly lamports: bigint;
  readonly owner: string;
  readonly data: [string, 'base64'];
  readonly executable: boolean;
}

export interface TransactionMeta {
  readonly fee: bigint;
  readonly err: unknown;
  readonly preBalances: bigint[];
  readonly postBalances: bigint[];
  readonly preTokenBalances: TokenBalance[];
  readonly postTokenBalances: TokenBalance[];
}

export interface ConfirmedTransaction {
  readonly slot: number;
  readonly blockTime: number | null;
  readonly meta: TransactionMeta | null;
  readonly transaction: [string, 'base64'];
}

/** The JSON-RPC methods the live executor uses to send and confirm. */
export interface LiveRpcPort {
  sendTransaction(
    txBase64: string,
    opts?: { skipPreflight?: boolean; maxRetries?: number; preflightCommitment?: Commitment; signal?: AbortSignal },
  ): Promise<string>;
  getSignatureStatuses(
    signatures: readonly string[],
    opts?: { searchTransactionHistory?: boolean; signal?: AbortSignal },
  ): Promise<{ context: { slot: number }; value: (SignatureStatus | null)[] }>;
  getBlockHeight(opts?: { commitment?: Commitment; signal?: AbortSignal }): Promise<number>;
  /** Current slot; used to judge how fresh the deciding expiry answer is (optional: a status read's context slot otherwise). */
  getSlot?(opts?: { commitment?: Commitment; signal?: AbortSignal }): Promise<number>;
  simulateTransaction(
    txBase64: string,
    opts?: {
      sigVerify?: boolean;
      replaceRecentBlockhash?: boolean;
      commitment?: Commitment;
      accounts?: { addresses: readonly string[]; encoding: 'base64' };
      signal?: AbortSignal;
    },
  ): Promise<{
    context: { slot: number };
    value: { err: unknown; logs: string[] | null; accounts: (RpcAccount | null)[] | null; unitsConsumed?: number };
  }>;
  getTransaction(
    signature: string,
    opts?: { commitment?: Commitment; maxSupportedTransactionVersion?: number; signal?: AbortSignal },
  ): Promise<ConfirmedTransaction | null>;
  /**
   * Current state of several accounts (the spec's "multiple-accounts method"), used for the
   * pre-state of the balance comparison. Shape mirrors `simulateTransaction`'s accounts.
   */
  getMultipleAccounts(
    addresses: readonly string[],
    opts?: { commitment?: Commitment; encoding?: 'base64'; signal?: AbortSignal },
  ): Promise<{ context: { slot: number }; value: (RpcAccount | null)[] }>;
  /** Recent per-slot priority fees (micro-lamports per compute unit); needed only with `settings.priorityFee`. */
  getRecentPrioritizationFees?(addresses?: readonly string[], opts?: { signal?: AbortSignal }): Promise<readonly { slot: number; prioritizationFee: bigint }[]>;
}

/** The swap service's request, as the client defines it (one type: client/swap/swap-request.ts). */
export type { SwapRequest };

export interface BuiltSwap {
  readonly transaction: VersionedTransaction | Transaction;
  readonly raw: Uint8Array;
  readonly base64: string;
}

/** The swap service call (POST /swap). */
export interface SwapBuilderPort {
  buildSwap(req: SwapRequest, opts?: { signal?: AbortSignal }): Promise<BuiltSwap>;
}

/** The wrapped-SOL mint: SOL on the swap service's `from`/`to`. */
export const WSOL_MINT = 'So11111111111111111111111111111111111111112';
