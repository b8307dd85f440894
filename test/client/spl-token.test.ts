import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_SIZE, AccountState, ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, MINT_SIZE,
  createAssociatedTokenAccountIdempotentInstruction, createTransferInstruction, decodeMint, decodeTokenAccount, encodeMint, encodeTokenAccount, getAssociatedTokenAddressSync,
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
    const image = { mint, owner, amount: 123_456_789n, delegate: null, state: AccountState.Initialized, isNative: null, delegatedAmount: 0n, closeAuthority: owner };
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
    expect(t.keys.map((k) => [k.pubkey.toBase58(), k.isSigner, k.isWritable])).toEqual([[a.toBase58(), false, true], [b.toBase58(), false, true], [signer.toBase58(), true, false]]);
    const ata = getAssociatedTokenAddressSync(mint, owner);
    const c = createAssociatedTokenAccountIdempotentInstruction(signer, ata, owner, mint);
    expect(c.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)).toBe(true);
    expect([...c.data]).toEqual([1]);
    expect(c.keys.map((k) => k.pubkey.toBase58())).toEqual([signer, ata, owner, mint, new PublicKey('11111111111111111111111111111111'), TOKEN_PROGRAM_ID].map((k) => k.toBase58()));
  });
});
