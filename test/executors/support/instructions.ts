/**
 * Fixtures of the instruction-level tests (instruction checks, static output proof): deterministic
 * keys, the associated token account of a mint, and instructions as the decoder hands them over.
 */
import { Keypair, type PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '../../../src/client/spl-token.js';
import type { DecodedInstruction } from '../../../src/executors/live/instruction-checks.js';

/** The public key of the keypair seeded with 32 bytes of `n`. */
export const key = (n: number): PublicKey => Keypair.fromSeed(new Uint8Array(32).fill(n)).publicKey;
export const wallet = key(1);
export const pool = key(2);
export const mint = key(3);
export const other = key(4);
/** The associated token account of mint `m` for `owner` (default: our wallet), under `program` (default: SPL Token). */
export const ata = (m: PublicKey, owner = wallet, program?: PublicKey): PublicKey => getAssociatedTokenAddressSync(m, owner, true, program);
/** `ixs` as decoded instructions: program and account addresses in base58, the data bytes. */
export const decoded = (ixs: TransactionInstruction[]): DecodedInstruction[] =>
  ixs.map((ix) => ({ program: ix.programId.toBase58(), accounts: ix.keys.map((k) => k.pubkey.toBase58()), data: new Uint8Array(ix.data) }));
