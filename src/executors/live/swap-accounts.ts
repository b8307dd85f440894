/**
 * The accounts a swap for one intent is meant to touch on our side: the intended input (SOL from
 * the wallet and its wrapped-SOL account on a buy; the mint's token account on a sell) and the
 * intended output (the mint's token account on a buy; the wallet and its wrapped-SOL account on a
 * sell). Both token programs' associated addresses are included, since inspection may run
 * without reading the mint. Address derivation is a curve search, so results are cached (bounded).
 */
import { PublicKey } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '@solana/spl-token';
import type { OrderIntent } from '../../engine/execution-port.js';
import { WSOL_MINT } from './ports.js';

export interface SwapAccounts {
  readonly wallet: string;
  /** Our accounts the swap may take from (within the intent's amount). */
  readonly inputs: ReadonlySet<string>;
  /** Our accounts the output may arrive in. */
  readonly outputs: ReadonlySet<string>;
  /** Our token accounts of the intent's mint, per token program. */
  readonly mintAccounts: { readonly classic: string; readonly token2022: string };
}

const MAX_CACHED = 2_048;
const cache = new Map<string, string>();

/** The associated token address of (`owner`, `mint`) under `program`, cached. */
export function associatedAddress(owner: string, mint: string, program: 'classic' | '2022'): string {
  const key = `${owner}:${mint}:${program}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const address = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true, program === 'classic' ? TOKEN_PROGRAM_ID : TOKEN_2022_PROGRAM_ID).toBase58();
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, address);
  return address;
}

/** Input and output accounts of `intent` for `wallet` (base58). */
export function swapAccountsOf(intent: Pick<OrderIntent, 'side' | 'mint'>, wallet: string): SwapAccounts {
  const classic = associatedAddress(wallet, intent.mint, 'classic');
  const token2022 = associatedAddress(wallet, intent.mint, '2022');
  const wsol = associatedAddress(wallet, WSOL_MINT, 'classic');
  const sol = new Set([wallet, wsol]);
  const mint = new Set([classic, token2022]);
  return intent.side === 'buy'
    ? { wallet, inputs: sol, outputs: mint, mintAccounts: { classic, token2022 } }
    : { wallet, inputs: mint, outputs: sol, mintAccounts: { classic, token2022 } };
}
