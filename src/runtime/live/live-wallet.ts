/**
 * The live deployment's wallet: its signer from `wallet.keypairPath` or `wallet.secretKey`, and
 * what the chain says it holds (SOL and SPL token balances per mint), read through JSON-RPC.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import type { Deployment } from '../../config/index.js';
import { keypairSigner, parseSecretKey, signerFromKeypairFile, type Signer } from '../../executors/signer/signer.js';

/** The signer of `d.wallet` (checked present by the rails). `keypairPath` is relative to the working directory. */
export function walletSigner(d: Deployment): Signer {
  const w = d.wallet;
  if (w?.keypairPath !== undefined) return signerFromKeypairFile(resolve(w.keypairPath));
  return keypairSigner(parseSecretKey(w?.secretKey ?? '', 'wallet.secretKey'));
}

export interface WalletHoldings {
  readonly lamports: bigint;
  /** Raw token amount per mint, summed over the wallet's token accounts (zero balances left out). */
  readonly tokens: ReadonlyMap<string, bigint>;
  /** Lamports locked as rent in the wallet's token accounts (not part of `lamports`). */
  readonly tokenAccountRentLamports: bigint;
}

/** The JSON-RPC methods the read needs. */
export interface HoldingsRpc {
  getBalance(address: string, opts?: { commitment?: 'processed' | 'confirmed' | 'finalized'; signal?: AbortSignal }): Promise<{ value: bigint }>;
  call(method: string, params: unknown[], opts?: { signal?: AbortSignal }): Promise<unknown>;
}

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const tokenAccounts = z.object({
  value: z.array(
    z.object({
      account: z.object({
        lamports: z.number().int().nonnegative(),
        data: z.object({ parsed: z.object({ info: z.object({ mint: z.string(), tokenAmount: z.object({ amount: z.string().regex(/^\d+$/) }) }) }) }),
      }),
    }),
  ),
});

/** Reads the wallet's SOL and SPL token balances at `confirmed`. */
export async function readWalletHoldings(rpc: HoldingsRpc, address: string, signal?: AbortSignal): Promise<WalletHoldings> {
  const opts = signal ? { signal } : {};
  const { value: lamports } = await rpc.getBalance(address, { commitment: 'confirmed', ...opts });
  const raw = await rpc.call('getTokenAccountsByOwner', [address, { programId: TOKEN_PROGRAM }, { encoding: 'jsonParsed', commitment: 'confirmed' }], opts);
  const tokens = new Map<string, bigint>();
  let rent = 0n;
  for (const { account } of tokenAccounts.parse(raw).value) {
    const { mint, tokenAmount } = account.data.parsed.info;
    rent += BigInt(account.lamports);
    const amount = BigInt(tokenAmount.amount);
    if (amount > 0n) tokens.set(mint, (tokens.get(mint) ?? 0n) + amount);
  }
  return { lamports, tokens, tokenAccountRentLamports: rent };
}
