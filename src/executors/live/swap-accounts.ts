/**
 * The accounts a swap for one intent is meant to touch on our side: the intended input (SOL from
 * the wallet and its wrapped-SOL account on a buy; the mint's token account on a sell) and the
 * intended output (the mint's token account on a buy; the wallet and its wrapped-SOL account on a
 * sell). A sell's input is the mint's associated account under either token program the
 * transaction can reach (inspection may run without reading the mint); a buy's output needs no
 * address (see `swapAccountsOf`). Address derivation is a curve search, so results are cached.
 */
import { BoundedMap } from '../../core/bounded-map.js';
import { PublicKey } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '../../client/spl-token.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import { WSOL_MINT } from './ports.js';

export interface SwapAccounts {
  readonly wallet: string;
  /** Our accounts the swap may take from (within the intent's amount). */
  readonly inputs: ReadonlySet<string>;
  /** Our accounts the output may arrive in. */
  readonly outputs: ReadonlySet<string>;
}

/** Which token programs a transaction can reach (its own or a venue's calls need the program's account). */
export interface TokenProgramsReached {
  readonly classic: boolean;
  readonly token2022: boolean;
}

const MAX_CACHED = 2_048;
const cache = new BoundedMap<string, string>(MAX_CACHED);

/** The associated token address of (`owner`, `mint`) under `program`, cached. */
export function associatedAddress(owner: string, mint: string, program: 'classic' | '2022'): string {
  const key = `${owner}:${mint}:${program}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const address = getAssociatedTokenAddressSync(
    new PublicKey(mint),
    new PublicKey(owner),
    true,
    program === 'classic' ? TOKEN_PROGRAM_ID : TOKEN_2022_PROGRAM_ID,
  ).toBase58();
  cache.set(key, address);
  return address;
}

/**
 * Input and output accounts of `intent` for `wallet` (base58). Associated addresses are derived
 * only under the token programs the transaction can reach: an account of a program the
 * transaction cannot call cannot be touched by it, and each derivation is a curve search.
 */
export function swapAccountsOf(
  intent: Pick<OrderIntent, 'side' | 'mint'>,
  wallet: string,
  reached: TokenProgramsReached = { classic: true, token2022: true },
): SwapAccounts {
  const sol = new Set([wallet]);
  if (reached.classic) sol.add(associatedAddress(wallet, WSOL_MINT, 'classic'));
  if (intent.side === 'buy') {
    // A buy's output account needs no address: nothing may take from it or close it, and the
    // simulation finds the tokens in whichever account of ours they arrive. A new mint per buy
    // would otherwise cost a curve search on the latency path.
    return { wallet, inputs: sol, outputs: new Set() };
  }
  const mint = new Set<string>();
  if (reached.classic) mint.add(associatedAddress(wallet, intent.mint, 'classic'));
  if (reached.token2022) mint.add(associatedAddress(wallet, intent.mint, '2022'));
  return { wallet, inputs: mint, outputs: sol };
}
