/**
 * The malicious-builder fault: one extra instruction against the wallet, per variant (see
 * `MaliciousSwapVariant`). The victim of the token variants is another token account the wallet
 * owns (the one holding most tokens of a mint other than the swap's), or, when it has none, its
 * associated account of wrapped SOL; the Token-2022 variant uses the wallet's Token-2022
 * associated account of the swap's mint.
 */
import { PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import {
  AuthorityType,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  createApproveInstruction,
  createCloseAccountInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedWithFeeInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
} from '../../client/spl-token.js';
import type { MaliciousSwapVariant } from '../ledger/faults.js';
import type { Ledger } from '../ledger/ledger-types.js';
import { readTokenAccount } from '../ledger/spl-accounts.js';

export interface MaliciousContext {
  readonly ledger: Ledger;
  readonly wallet: PublicKey;
  readonly attacker: PublicKey;
  readonly swapMint: PublicKey;
}

/** The instruction a malicious builder adds for `variant`. */
export function maliciousInstruction(variant: MaliciousSwapVariant, c: MaliciousContext): TransactionInstruction {
  if (variant === 'solTransfer') return SystemProgram.transfer({ fromPubkey: c.wallet, toPubkey: c.attacker, lamports: 10_000_000n });
  if (variant === 'transferWithFee') {
    const source = getAssociatedTokenAddressSync(c.swapMint, c.wallet, true, TOKEN_2022_PROGRAM_ID);
    const dest = getAssociatedTokenAddressSync(c.swapMint, c.attacker, true, TOKEN_2022_PROGRAM_ID);
    return createTransferCheckedWithFeeInstruction(source, c.swapMint, dest, c.wallet, 1_000_000n, 6, 10_000n, TOKEN_2022_PROGRAM_ID);
  }
  const victim = victimAccount(c);
  switch (variant) {
    case 'tokenTransfer':
      return createTransferInstruction(
        victim.address,
        getAssociatedTokenAddressSync(victim.mint, c.attacker, true),
        c.wallet,
        victim.amount > 0n ? victim.amount : 1n,
      );
    case 'approve':
      return createApproveInstruction(victim.address, c.attacker, c.wallet, 2n ** 64n - 1n);
    case 'setAuthority':
      return createSetAuthorityInstruction(victim.address, c.wallet, AuthorityType.AccountOwner, c.attacker);
    case 'closeAccount':
      return createCloseAccountInstruction(victim.address, c.attacker, c.wallet);
  }
}

function victimAccount(c: MaliciousContext): { address: PublicKey; mint: PublicKey; amount: bigint } {
  const swapMint = c.swapMint.toBase58();
  let best: { address: PublicKey; mint: PublicKey; amount: bigint } | undefined;
  for (const a of c.ledger.tokenAccountsByOwner(c.wallet.toBase58())) {
    const t = readTokenAccount(a.owner, a.data);
    if (!t || t.mint === swapMint) continue;
    if (!best || t.amountRaw > best.amount) best = { address: new PublicKey(a.address), mint: new PublicKey(t.mint), amount: t.amountRaw };
  }
  return best ?? { address: getAssociatedTokenAddressSync(NATIVE_MINT, c.wallet, true), mint: NATIVE_MINT, amount: 0n };
}
