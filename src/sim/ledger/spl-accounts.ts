/**
 * Raw SPL Token account images (mints and token accounts) written straight into LiteSVM, and the
 * decoding of token accounts for `preTokenBalances`, `getTokenAccountsByOwner` and friends.
 * Layouts come from @solana/spl-token, not hand-written offsets.
 */
import { AccountLayout, AccountState, MintLayout, TOKEN_PROGRAM_ID, ACCOUNT_SIZE, MINT_SIZE } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';

export { ACCOUNT_SIZE, MINT_SIZE, TOKEN_PROGRAM_ID };

/** Bytes of an initialised mint. */
export function mintData(mintAuthority: PublicKey, supplyRaw: bigint, decimals: number): Uint8Array {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 1,
      mintAuthority,
      supply: supplyRaw,
      decimals,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    data,
  );
  return data;
}

/** Supply of a mint from its bytes. */
export function mintSupply(data: Uint8Array): bigint {
  return MintLayout.decode(Buffer.from(data)).supply;
}

/** Bytes of an initialised token account. */
export function tokenAccountData(mint: PublicKey, owner: PublicKey, amountRaw: bigint): Uint8Array {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint,
      owner,
      amount: amountRaw,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: AccountState.Initialized,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  return data;
}

export interface TokenAccountView {
  readonly mint: string;
  readonly owner: string;
  readonly amountRaw: bigint;
}

/** Decodes an SPL token account, or undefined when the bytes are not one. */
export function readTokenAccount(owner: string, data: Uint8Array): TokenAccountView | undefined {
  if (owner !== TOKEN_PROGRAM_ID.toBase58() || data.length !== ACCOUNT_SIZE) return undefined;
  const a = AccountLayout.decode(Buffer.from(data));
  if (a.state === AccountState.Uninitialized) return undefined;
  return { mint: a.mint.toBase58(), owner: a.owner.toBase58(), amountRaw: a.amount };
}
