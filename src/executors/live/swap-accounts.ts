/**
 * "Our accounts" for one transaction, derived once from the wallet, the intent's mint and the token
 * programs the transaction can reach: the intended input (SOL from the wallet and its wrapped-SOL
 * account on a buy; the mint's associated token accounts on a sell), the intended output (the
 * mint's associated token accounts on a buy; the wallet and its wrapped-SOL account on a sell), and
 * every token account the transaction itself creates or initialises for our wallet. Inspection
 * judges any instruction naming one of these, whatever signs it: a delegate's transfer out of, or
 * burn from, the output account the swap just paid is found by the address, not by the signer.
 * Address derivation is a curve search, so results are cached.
 */
import { BoundedMap } from '../../core/bounded-map.js';
import { PublicKey } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '../../client/spl-token.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import { WSOL_MINT } from './ports.js';
import { keyText } from '../../client/key-text.js';
import { ATA_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type DecodedInstruction } from './instruction-checks.js';

export interface SwapAccounts {
  readonly wallet: string;
  /** Our accounts the swap may take from (within the intent's amount). */
  readonly inputs: ReadonlySet<string>;
  /** Our accounts the output may arrive in. */
  readonly outputs: ReadonlySet<string>;
  /** Token accounts the transaction creates or initialises with our wallet as owner (any mint). */
  readonly created: ReadonlySet<string>;
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

/** True when the associated address of (`owner`, `mint`) under `program` is cached (tests of the warm-up). */
export function isAssociatedAddressCached(owner: string, mint: string, program: 'classic' | '2022'): boolean {
  return cache.get(`${owner}:${mint}:${program}`) !== undefined;
}

/**
 * Derives, into the cache, the associated addresses inspection needs for `intent` under the classic
 * token program (the wallet's wrapped-SOL account and its account of the mint), which every swap
 * moving wrapped SOL reaches. Each derivation of a mint not seen before is a curve search of about
 * 0.25 ms of CPU; the live executor runs this while the swap service builds the transaction
 * (drive-intent.ts), so inspection finds them cached instead of searching between the build and the
 * send. Token-2022 addresses are left to inspection, which derives them only for a transaction that
 * reaches that program.
 */
export function warmSwapAccounts(intent: Pick<OrderIntent, 'mint'>, wallet: string): void {
  associatedAddress(wallet, WSOL_MINT, 'classic');
  associatedAddress(wallet, intent.mint, 'classic');
}

/**
 * Input and output accounts of `intent` for `wallet` (base58), and the token accounts
 * `instructions` create for our wallet. Associated addresses are derived only under the token
 * programs the transaction can reach: an account of a program the transaction cannot call cannot
 * be touched by it.
 */
export function swapAccountsOf(
  intent: Pick<OrderIntent, 'side' | 'mint'>,
  wallet: string,
  reached: TokenProgramsReached = { classic: true, token2022: true },
  instructions: readonly DecodedInstruction[] = [],
): SwapAccounts {
  const sol = new Set([wallet]);
  if (reached.classic) sol.add(associatedAddress(wallet, WSOL_MINT, 'classic'));
  const mint = new Set<string>();
  if (reached.classic) mint.add(associatedAddress(wallet, intent.mint, 'classic'));
  if (reached.token2022) mint.add(associatedAddress(wallet, intent.mint, '2022'));
  const created = createdFor(wallet, instructions);
  return intent.side === 'buy' ? { wallet, inputs: sol, outputs: mint, created } : { wallet, inputs: mint, outputs: sol, created };
}

/**
 * True when the swap may close `account`: an intended input (a buy's wrapped SOL, a sell's emptied
 * token account) or a sell's output (its wrapped SOL, unwrapped). Never a buy's output account.
 */
export function closable(ours: SwapAccounts, side: 'buy' | 'sell', account: string): boolean {
  return ours.inputs.has(account) || (side === 'sell' && ours.outputs.has(account));
}

/**
 * Token accounts `instructions` create for `wallet`: Associated Token Account `Create` /
 * `CreateIdempotent` with our wallet as owner, and token `InitializeAccount` (owner in the
 * accounts), `InitializeAccount2` / `InitializeAccount3` (owner in the data) naming our wallet.
 */
function createdFor(wallet: string, instructions: readonly DecodedInstruction[]): Set<string> {
  const created = new Set<string>();
  for (const ix of instructions) {
    const a = ix.accounts;
    const d = ix.data;
    if (ix.program === ATA_PROGRAM && (d.length === 0 || d[0] === 0 || d[0] === 1)) {
      if (a[2] === wallet && a[1] !== undefined) created.add(a[1]);
    } else if (ix.program === TOKEN_PROGRAM || ix.program === TOKEN_2022_PROGRAM) {
      const owner = d[0] === 1 ? a[2] : (d[0] === 16 || d[0] === 18) && d.length >= 33 ? keyText(d.subarray(1, 33)) : undefined;
      if (owner === wallet && a[0] !== undefined) created.add(a[0]);
    }
  }
  return created;
}
