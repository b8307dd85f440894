import { Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_SIZE,
  AccountState,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  MINT_SIZE,
  AuthorityType,
  NATIVE_MINT,
  createApproveInstruction,
  createBurnInstruction,
  createCloseAccountInstruction,
  createSetAuthorityInstruction,
  createSyncNativeInstruction,
  createTransferCheckedInstruction,
  createTransferCheckedWithFeeInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferInstruction,
  decodeMint,
  decodeTokenAccount,
  encodeMint,
  encodeTokenAccount,
  getAssociatedTokenAddressSync,
} from '../../src/client/spl-token.js';

const owner = new PublicKey('7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU');
const mint = new PublicKey('So11111111111111111111111111111111111111112');

describe('spl-token (the subset chainpilot uses)', () => {
  it('derives the same associated token addresses as @solana/spl-token 0.4.15 did, for both token programs', () => {
    expect(getAssociatedTokenAddressSync(mint, owner).toBase58()).toBe('82q1Nn1an7JxraeHwfi9rH2Shja1gCPXtxSTCCzDE6wM');
    expect(getAssociatedTokenAddressSync(mint, owner, true, TOKEN_2022_PROGRAM_ID).toBase58()).toBe('BxVoat8Tm12GJ77UxxZwzo8d8Qw9e3oR6HUXL8evM1TY');
  });

  it('refuses an off-curve owner unless it is allowed', () => {
    const pda = getAssociatedTokenAddressSync(mint, owner);
    expect(() => getAssociatedTokenAddressSync(mint, pda)).toThrow(/off the ed25519 curve/);
    expect(getAssociatedTokenAddressSync(mint, pda, true)).toBeInstanceOf(PublicKey);
  });

  it('lays out a mint as the token program does and reads it back', () => {
    const auth = Keypair.generate().publicKey;
    const bytes = encodeMint({ mintAuthority: auth, supply: 2n ** 64n - 1n, decimals: 6, isInitialized: true, freezeAuthority: null });
    expect(bytes.length).toBe(MINT_SIZE);
    expect([...bytes.subarray(0, 4)]).toEqual([1, 0, 0, 0]);
    expect(Buffer.from(bytes.subarray(4, 36)).equals(auth.toBuffer())).toBe(true);
    expect([bytes[44], bytes[45], bytes[46]]).toEqual([6, 1, 0]);
    expect(decodeMint(bytes)).toEqual({ mintAuthority: auth, supply: 2n ** 64n - 1n, decimals: 6, isInitialized: true, freezeAuthority: null });
  });

  it('lays out a token account as the token program does and reads it back', () => {
    const image = {
      mint,
      owner,
      amount: 123_456_789n,
      delegate: null,
      state: AccountState.Initialized,
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: owner,
    };
    const bytes = encodeTokenAccount(image);
    expect(bytes.length).toBe(ACCOUNT_SIZE);
    expect(Buffer.from(bytes).readBigUInt64LE(64)).toBe(123_456_789n);
    expect(bytes[108]).toBe(AccountState.Initialized);
    expect(decodeTokenAccount(bytes)).toEqual(image);
    expect(() => decodeTokenAccount(bytes.subarray(0, 100))).toThrow(/165 bytes/);
  });

  it('builds Transfer and CreateIdempotent instructions with the programs, accounts and data the programs expect', () => {
    const [a, b, signer] = [Keypair.generate().publicKey, Keypair.generate().publicKey, Keypair.generate().publicKey];
    const t = createTransferInstruction(a, b, signer, 500n);
    expect(t.programId.equals(TOKEN_PROGRAM_ID)).toBe(true);
    expect([...t.data]).toEqual([3, 244, 1, 0, 0, 0, 0, 0, 0]);
    expect(t.keys.map((k) => [k.pubkey.toBase58(), k.isSigner, k.isWritable])).toEqual([
      [a.toBase58(), false, true],
      [b.toBase58(), false, true],
      [signer.toBase58(), true, false],
    ]);
    const ata = getAssociatedTokenAddressSync(mint, owner);
    const c = createAssociatedTokenAccountIdempotentInstruction(signer, ata, owner, mint);
    expect(c.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)).toBe(true);
    expect([...c.data]).toEqual([1]);
    expect(c.keys.map((k) => k.pubkey.toBase58())).toEqual(
      [signer, ata, owner, mint, new PublicKey('11111111111111111111111111111111'), TOKEN_PROGRAM_ID].map((k) => k.toBase58()),
    );
  });

  // Expected bytes and account metas were printed by @solana/spl-token 0.4.15 for the same inputs
  // (keys from seeds 1..4), before the package was removed.
  it('encodes Approve, SetAuthority, Burn, CloseAccount, TransferChecked, SyncNative and TransferCheckedWithFee as @solana/spl-token 0.4.15 did', () => {
    const k = (n: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;
    const [a, b, c, d] = [k(1), k(2), k(3), k(4)];
    const shape = (ix: TransactionInstruction) => ({
      program: ix.programId.toBase58(),
      data: [...ix.data],
      keys: ix.keys.map((m) => [m.pubkey.toBase58(), m.isSigner, m.isWritable]),
    });
    const token = TOKEN_PROGRAM_ID.toBase58();
    const w = (p: PublicKey) => [p.toBase58(), false, true];
    const r = (p: PublicKey) => [p.toBase58(), false, false];
    const s = (p: PublicKey) => [p.toBase58(), true, false];
    expect(NATIVE_MINT.toBase58()).toBe('So11111111111111111111111111111111111111112');
    expect(shape(createApproveInstruction(a, b, c, 2n ** 64n - 1n))).toEqual({
      program: token,
      data: [4, 255, 255, 255, 255, 255, 255, 255, 255],
      keys: [w(a), r(b), s(c)],
    });
    expect(shape(createSetAuthorityInstruction(a, c, AuthorityType.AccountOwner, b))).toEqual({
      program: token,
      data: [6, 2, 1, ...b.toBytes()],
      keys: [w(a), s(c)],
    });
    expect(shape(createSetAuthorityInstruction(a, c, AuthorityType.CloseAccount, null))).toEqual({ program: token, data: [6, 3, 0], keys: [w(a), s(c)] });
    expect(shape(createCloseAccountInstruction(a, b, c))).toEqual({ program: token, data: [9], keys: [w(a), w(b), s(c)] });
    expect(shape(createBurnInstruction(a, d, c, 7n))).toEqual({ program: token, data: [8, 7, 0, 0, 0, 0, 0, 0, 0], keys: [w(a), w(d), s(c)] });
    expect(shape(createSyncNativeInstruction(a))).toEqual({ program: token, data: [17], keys: [w(a)] });
    expect(shape(createTransferCheckedInstruction(a, d, b, c, 700n, 6))).toEqual({
      program: token,
      data: [12, 188, 2, 0, 0, 0, 0, 0, 0, 6],
      keys: [w(a), r(d), w(b), s(c)],
    });
    expect(shape(createTransferCheckedInstruction(a, d, b, c, 700n, 6, TOKEN_2022_PROGRAM_ID)).program).toBe(TOKEN_2022_PROGRAM_ID.toBase58());
    expect(shape(createTransferCheckedWithFeeInstruction(a, d, b, c, 1_000_000n, 6, 10_000n))).toEqual({
      program: TOKEN_2022_PROGRAM_ID.toBase58(),
      data: [26, 1, 64, 66, 15, 0, 0, 0, 0, 0, 6, 16, 39, 0, 0, 0, 0, 0, 0],
      keys: [w(a), r(d), w(b), s(c)],
    });
  });
});
