/**
 * Raw SPL Token account images (mints and token accounts) written straight into LiteSVM, and the
 * decoding of token accounts for `preTokenBalances`, `getTokenAccountsByOwner` and friends.
 * Layouts come from client/spl-token.ts (the token program's layouts, checked byte for byte).
 */
import type { PublicKey } from '@solana/web3.js';
import { AccountState, ACCOUNT_SIZE, decodeMint, encodeMint, encodeTokenAccount, MINT_SIZE, TOKEN_PROGRAM_ID } from '../../client/spl-token.js';
import { keyText } from '../../client/key-text.js';

export { ACCOUNT_SIZE, MINT_SIZE, TOKEN_PROGRAM_ID };

/** Bytes of an initialised mint. */
export function mintData(mintAuthority: PublicKey, supplyRaw: bigint, decimals: number): Uint8Array {
  return encodeMint({ mintAuthority, supply: supplyRaw, decimals, isInitialized: true, freezeAuthority: null });
}

/** Supply of a mint from its bytes. */
export function mintSupply(data: Uint8Array): bigint {
  return decodeMint(data).supply;
}

/** Bytes of an initialised token account. */
export function tokenAccountData(mint: PublicKey, owner: PublicKey, amountRaw: bigint): Uint8Array {
  return encodeTokenAccount({
    mint,
    owner,
    amount: amountRaw,
    delegate: null,
    state: AccountState.Initialized,
    isNative: null,
    delegatedAmount: 0n,
    closeAuthority: null,
  });
}

export interface TokenAccountView {
  readonly mint: string;
  readonly owner: string;
  readonly amountRaw: bigint;
}

const TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58();

/**
 * Decodes an SPL token account, or undefined when the bytes are not one. Reads the three fields in
 * place (the layout of decodeTokenAccount) with cached key text: it runs for every account of
 * every landed transaction.
 */
export function readTokenAccount(owner: string, data: Uint8Array): TokenAccountView | undefined {
  if (owner !== TOKEN_PROGRAM || data.length !== ACCOUNT_SIZE) return undefined;
  if (data[108] === AccountState.Uninitialized) return undefined;
  const amountRaw = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(64, true);
  return { mint: keyText(data.subarray(0, 32)), owner: keyText(data.subarray(32, 64)), amountRaw };
}
