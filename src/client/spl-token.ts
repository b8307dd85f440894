/**
 * The part of the SPL Token program chainpilot uses, on @solana/web3.js: program ids, associated
 * token addresses, the mint and token account layouts, the two instructions a swap needs (create
 * the associated account idempotently, transfer) and the few others the simulator's malicious
 * builder and the inspection tests encode (approve, set authority, close, burn, sync native,
 * transfer checked, Token-2022 transfer checked with fee). It replaces @solana/spl-token, whose
 * token-2022 extensions pull a second, incompatible version line of the @solana/codecs packages.
 * Layouts follow the program's Rust `Pack` implementations (82-byte mint, 165-byte account).
 */
import { PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { ChainpilotError } from '../core/errors.js';

/** The SPL Token program. */
export const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
/** The Token-2022 program. */
export const TOKEN_2022_PROGRAM_ID = new PublicKey('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
/** The Associated Token Account program. */
export const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');

/** The wrapped SOL mint. */
export const NATIVE_MINT = new PublicKey('So11111111111111111111111111111111111111112');

/** Bytes of a mint account. */
export const MINT_SIZE = 82;
/** Bytes of a token account. */
export const ACCOUNT_SIZE = 165;

/** `AccountState` of the token program. */
export const AccountState = { Uninitialized: 0, Initialized: 1, Frozen: 2 } as const;
export type AccountState = (typeof AccountState)[keyof typeof AccountState];

/** A decoded mint. */
export interface MintImage {
  readonly mintAuthority: PublicKey | null;
  readonly supply: bigint;
  readonly decimals: number;
  readonly isInitialized: boolean;
  readonly freezeAuthority: PublicKey | null;
}

/** A decoded token account (the fields chainpilot reads and writes). */
export interface TokenAccountImage {
  readonly mint: PublicKey;
  readonly owner: PublicKey;
  readonly amount: bigint;
  readonly delegate: PublicKey | null;
  readonly state: AccountState;
  /** Rent-exempt reserve of a native (wrapped SOL) account, or null. */
  readonly isNative: bigint | null;
  readonly delegatedAmount: bigint;
  readonly closeAuthority: PublicKey | null;
}

/** The address of `owner`'s associated token account for `mint` (off-curve owners only when allowed). */
export function getAssociatedTokenAddressSync(
  mint: PublicKey,
  owner: PublicKey,
  allowOwnerOffCurve = false,
  programId: PublicKey = TOKEN_PROGRAM_ID,
  associatedTokenProgramId: PublicKey = ASSOCIATED_TOKEN_PROGRAM_ID,
): PublicKey {
  if (!allowOwnerOffCurve && !PublicKey.isOnCurve(owner.toBytes())) {
    throw new ChainpilotError(
      'CORE_INVALID_ARGUMENT',
      `owner ${owner.toBase58()} is off the ed25519 curve: pass allowOwnerOffCurve for a program-derived owner`,
      { retry: 'not_retryable' },
    );
  }
  return PublicKey.findProgramAddressSync([owner.toBuffer(), programId.toBuffer(), mint.toBuffer()], associatedTokenProgramId)[0];
}

function writeOptionKey(view: DataView, bytes: Uint8Array, offset: number, key: PublicKey | null): number {
  view.setUint32(offset, key ? 1 : 0, true);
  bytes.set(key ? key.toBytes() : new Uint8Array(32), offset + 4);
  return offset + 36;
}

function readOptionKey(view: DataView, bytes: Uint8Array, offset: number): PublicKey | null {
  return view.getUint32(offset, true) === 0 ? null : new PublicKey(bytes.subarray(offset + 4, offset + 36));
}

/** Encodes a mint into its 82 bytes. */
export function encodeMint(m: MintImage): Uint8Array {
  const bytes = new Uint8Array(MINT_SIZE);
  const view = new DataView(bytes.buffer);
  let o = writeOptionKey(view, bytes, 0, m.mintAuthority);
  view.setBigUint64(o, m.supply, true);
  o += 8;
  view.setUint8(o++, m.decimals);
  view.setUint8(o++, m.isInitialized ? 1 : 0);
  writeOptionKey(view, bytes, o, m.freezeAuthority);
  return bytes;
}

/** Decodes a mint's 82 bytes. */
export function decodeMint(data: Uint8Array): MintImage {
  if (data.length < MINT_SIZE)
    throw new ChainpilotError('CORE_INVALID_ARGUMENT', `a mint has ${MINT_SIZE} bytes; got ${data.length}`, { retry: 'not_retryable' });
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    mintAuthority: readOptionKey(view, data, 0),
    supply: view.getBigUint64(36, true),
    decimals: view.getUint8(44),
    isInitialized: view.getUint8(45) !== 0,
    freezeAuthority: readOptionKey(view, data, 46),
  };
}

/** Encodes a token account into its 165 bytes. */
export function encodeTokenAccount(a: TokenAccountImage): Uint8Array {
  const bytes = new Uint8Array(ACCOUNT_SIZE);
  const view = new DataView(bytes.buffer);
  bytes.set(a.mint.toBytes(), 0);
  bytes.set(a.owner.toBytes(), 32);
  view.setBigUint64(64, a.amount, true);
  let o = writeOptionKey(view, bytes, 72, a.delegate);
  view.setUint8(o++, a.state);
  view.setUint32(o, a.isNative === null ? 0 : 1, true);
  view.setBigUint64(o + 4, a.isNative ?? 0n, true);
  o += 12;
  view.setBigUint64(o, a.delegatedAmount, true);
  writeOptionKey(view, bytes, o + 8, a.closeAuthority);
  return bytes;
}

/** Decodes a token account's 165 bytes. */
export function decodeTokenAccount(data: Uint8Array): TokenAccountImage {
  if (data.length < ACCOUNT_SIZE)
    throw new ChainpilotError('CORE_INVALID_ARGUMENT', `a token account has ${ACCOUNT_SIZE} bytes; got ${data.length}`, { retry: 'not_retryable' });
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    mint: new PublicKey(data.subarray(0, 32)),
    owner: new PublicKey(data.subarray(32, 64)),
    amount: view.getBigUint64(64, true),
    delegate: readOptionKey(view, data, 72),
    state: view.getUint8(108) as AccountState,
    isNative: view.getUint32(109, true) === 0 ? null : view.getBigUint64(113, true),
    delegatedAmount: view.getBigUint64(121, true),
    closeAuthority: readOptionKey(view, data, 129),
  };
}

/** `CreateIdempotent` of the Associated Token Account program. */
export function createAssociatedTokenAccountIdempotentInstruction(
  payer: PublicKey,
  associatedToken: PublicKey,
  owner: PublicKey,
  mint: PublicKey,
  programId: PublicKey = TOKEN_PROGRAM_ID,
  associatedTokenProgramId: PublicKey = ASSOCIATED_TOKEN_PROGRAM_ID,
): TransactionInstruction {
  return new TransactionInstruction({
    programId: associatedTokenProgramId,
    keys: [
      { pubkey: payer, isSigner: true, isWritable: true },
      { pubkey: associatedToken, isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: false, isWritable: false },
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: programId, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]),
  });
}

/** `Transfer` (instruction 3) of the token program: `amountRaw` from `source` to `destination`, signed by `owner`. */
export function createTransferInstruction(
  source: PublicKey,
  destination: PublicKey,
  owner: PublicKey,
  amountRaw: bigint,
  programId: PublicKey = TOKEN_PROGRAM_ID,
): TransactionInstruction {
  const data = Buffer.alloc(9);
  data.writeUInt8(3, 0);
  data.writeBigUInt64LE(amountRaw, 1);
  return new TransactionInstruction({
    programId,
    keys: [
      { pubkey: source, isSigner: false, isWritable: true },
      { pubkey: destination, isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: true, isWritable: false },
    ],
    data,
  });
}

/** `AuthorityType` of `SetAuthority` (the token program's four; Token-2022 extensions add more). */
export const AuthorityType = { MintTokens: 0, FreezeAccount: 1, AccountOwner: 2, CloseAccount: 3 } as const;
export type AuthorityType = (typeof AuthorityType)[keyof typeof AuthorityType];

const meta = (pubkey: PublicKey, isSigner: boolean, isWritable: boolean) => ({ pubkey, isSigner, isWritable });

/** Instruction data: a one-byte tag, then an optional u64 amount, then optional trailing bytes. */
function tagged(tag: readonly number[], amountRaw?: bigint, tail: readonly number[] = []): Buffer {
  const amountBytes = amountRaw === undefined ? 0 : 8;
  const data = Buffer.alloc(tag.length + amountBytes + tail.length);
  data.set(tag, 0);
  if (amountRaw !== undefined) data.writeBigUInt64LE(amountRaw, tag.length);
  data.set(tail, tag.length + amountBytes);
  return data;
}

/** `Approve` (4): lets `delegate` move up to `amountRaw` from `account`, signed by `owner`. */
export function createApproveInstruction(
  account: PublicKey,
  delegate: PublicKey,
  owner: PublicKey,
  amountRaw: bigint,
  programId: PublicKey = TOKEN_PROGRAM_ID,
): TransactionInstruction {
  return new TransactionInstruction({
    programId,
    keys: [meta(account, false, true), meta(delegate, false, false), meta(owner, true, false)],
    data: tagged([4], amountRaw),
  });
}

/** `SetAuthority` (6): gives `authorityType` over `account` to `newAuthority` (null clears it), signed by `currentAuthority`. */
export function createSetAuthorityInstruction(
  account: PublicKey,
  currentAuthority: PublicKey,
  authorityType: AuthorityType,
  newAuthority: PublicKey | null,
  programId: PublicKey = TOKEN_PROGRAM_ID,
): TransactionInstruction {
  const data = newAuthority ? Buffer.concat([Buffer.from([6, authorityType, 1]), newAuthority.toBuffer()]) : Buffer.from([6, authorityType, 0]);
  return new TransactionInstruction({ programId, keys: [meta(account, false, true), meta(currentAuthority, true, false)], data });
}

/** `Burn` (8): destroys `amountRaw` of `mint` held in `account`, signed by `owner`. */
export function createBurnInstruction(
  account: PublicKey,
  mint: PublicKey,
  owner: PublicKey,
  amountRaw: bigint,
  programId: PublicKey = TOKEN_PROGRAM_ID,
): TransactionInstruction {
  return new TransactionInstruction({
    programId,
    keys: [meta(account, false, true), meta(mint, false, true), meta(owner, true, false)],
    data: tagged([8], amountRaw),
  });
}

/** `CloseAccount` (9): closes `account` and sends its lamports to `destination`, signed by `authority`. */
export function createCloseAccountInstruction(
  account: PublicKey,
  destination: PublicKey,
  authority: PublicKey,
  programId: PublicKey = TOKEN_PROGRAM_ID,
): TransactionInstruction {
  return new TransactionInstruction({
    programId,
    keys: [meta(account, false, true), meta(destination, false, true), meta(authority, true, false)],
    data: Buffer.from([9]),
  });
}

/** `TransferChecked` (12): like `Transfer`, naming the mint and its decimals. */
export function createTransferCheckedInstruction(
  source: PublicKey,
  mint: PublicKey,
  destination: PublicKey,
  owner: PublicKey,
  amountRaw: bigint,
  decimals: number,
  programId: PublicKey = TOKEN_PROGRAM_ID,
): TransactionInstruction {
  return new TransactionInstruction({
    programId,
    keys: [meta(source, false, true), meta(mint, false, false), meta(destination, false, true), meta(owner, true, false)],
    data: tagged([12], amountRaw, [decimals]),
  });
}

/** `SyncNative` (17): sets a wrapped SOL account's token amount to its lamports above rent. */
export function createSyncNativeInstruction(account: PublicKey, programId: PublicKey = TOKEN_PROGRAM_ID): TransactionInstruction {
  return new TransactionInstruction({ programId, keys: [meta(account, false, true)], data: Buffer.from([17]) });
}

/** Token-2022 `TransferFeeExtension` (26) / `TransferCheckedWithFee` (1): a checked transfer stating the fee `feeRaw` the mint withholds. */
export function createTransferCheckedWithFeeInstruction(
  source: PublicKey,
  mint: PublicKey,
  destination: PublicKey,
  owner: PublicKey,
  amountRaw: bigint,
  decimals: number,
  feeRaw: bigint,
  programId: PublicKey = TOKEN_2022_PROGRAM_ID,
): TransactionInstruction {
  const data = Buffer.alloc(19);
  data.set([26, 1], 0);
  data.writeBigUInt64LE(amountRaw, 2);
  data[10] = decimals;
  data.writeBigUInt64LE(feeRaw, 11);
  return new TransactionInstruction({
    programId,
    keys: [meta(source, false, true), meta(mint, false, false), meta(destination, false, true), meta(owner, true, false)],
    data,
  });
}
