/**
 * The shapes other areas code against (from the client brief), restated here as narrow ports. The
 * real clients must satisfy them structurally: if a signature drifts, `npm test` fails typechecking.
 */
import type { Transaction, VersionedTransaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { createRpcClient, createSwapClient, type Commitment } from '../../src/client/index.js';

interface TokenBalancePort {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner?: string;
  readonly uiTokenAmount: { readonly amount: string; readonly decimals: number };
}
interface RpcAccountPort {
  readonly lamports: bigint;
  readonly owner: string;
  readonly data: [string, 'base64'];
  readonly executable: boolean;
  readonly rentEpoch?: number;
}
interface RpcPort {
  sendTransaction(
    txBase64: string,
    opts?: { skipPreflight?: boolean; maxRetries?: number; preflightCommitment?: Commitment; signal?: AbortSignal },
  ): Promise<string>;
  getSignatureStatuses(
    signatures: readonly string[],
    opts?: { searchTransactionHistory?: boolean; signal?: AbortSignal },
  ): Promise<{
    context: { slot: number };
    value: ({ slot: number; confirmations: number | null; err: unknown | null; confirmationStatus: Commitment | null } | null)[];
  }>;
  getBlockHeight(opts?: { commitment?: Commitment; signal?: AbortSignal }): Promise<number>;
  getLatestBlockhash(opts?: { signal?: AbortSignal }): Promise<{ context: { slot: number }; value: { blockhash: string; lastValidBlockHeight: number } }>;
  isBlockhashValid(blockhash: string, opts?: { signal?: AbortSignal }): Promise<{ context: { slot: number }; value: boolean }>;
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
    value: { err: unknown | null; logs: string[] | null; accounts: (RpcAccountPort | null)[] | null; unitsConsumed?: number };
  }>;
  getTransaction(
    signature: string,
    opts?: { commitment?: Commitment; maxSupportedTransactionVersion?: number; signal?: AbortSignal },
  ): Promise<{
    slot: number;
    blockTime: number | null;
    transaction: [string, 'base64'];
    meta: {
      fee: bigint;
      err: unknown | null;
      preBalances: bigint[];
      postBalances: bigint[];
      preTokenBalances: TokenBalancePort[];
      postTokenBalances: TokenBalancePort[];
    } | null;
  } | null>;
  getBalance(address: string, opts?: { signal?: AbortSignal }): Promise<{ context: { slot: number }; value: bigint }>;
  getMultipleAccounts(
    addresses: readonly string[],
    opts?: { commitment?: Commitment; encoding?: 'base64'; signal?: AbortSignal },
  ): Promise<{ context: { slot: number }; value: (RpcAccountPort | null)[] }>;
  requestAirdrop(address: string, lamports: bigint): Promise<string>;
}
interface SwapPort {
  buildSwap(
    req: { wallet: string; from: string; to: string; amount: string; slippagePct: number; priorityFeeSol: string },
    opts?: { signal?: AbortSignal },
  ): Promise<{ transaction: VersionedTransaction | Transaction; raw: Uint8Array; base64: string; body: Record<string, unknown> }>;
}

describe('contract shapes', () => {
  it('the real RPC and swap clients satisfy the ports other areas code against', async () => {
    const rpc: RpcPort = createRpcClient({ url: 'http://127.0.0.1:9' });
    const swap: SwapPort = createSwapClient({ url: 'http://127.0.0.1:9' });
    expect(typeof rpc.sendTransaction).toBe('function');
    expect(typeof swap.buildSwap).toBe('function');
    await (rpc as unknown as { close(): Promise<void> }).close();
    await (swap as unknown as { close(): Promise<void> }).close();
  });
});
