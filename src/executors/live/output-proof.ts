/**
 * Static mode's proof of the output: the least the intent receives if the transaction lands,
 * read from decoded instructions alone (no chain reads). A transaction is atomic, so a fixed-amount
 * transfer into our account is paid in full whenever the transaction lands. It counts:
 *
 * - on a buy, SPL Token (classic) `Transfer` / `TransferChecked` (of the intent's mint) into our
 *   associated account of the intent's mint from an account that is not ours, and Token-2022
 *   `TransferCheckedWithFee` of the intent's mint into our Token-2022 associated account, net of the
 *   fee it states. A plain Token-2022 transfer proves nothing (the mint may withhold a transfer
 *   fee that the instruction does not state);
 * - on a sell, System `Transfer` into our wallet from another account.
 *
 * This is how the simulator's swap service builds swaps (fixed transfers co-signed by the pool
 * authority, terms in a Memo): its output transfer is the swap's minimum-out argument. An output
 * that arrives through a venue program's CPI (any `allowedPrograms` entry) cannot be read here and
 * proves nothing, so static mode refuses such swaps (simulate mode measures them).
 */
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import { instructionName, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type DecodedInstruction } from './instruction-checks.js';
import { associatedAddress } from './swap-accounts.js';

export interface ProvenOutput {
  /** Least output proven: raw units of the intent's mint (buy) or lamports (sell). */
  readonly amount: bigint;
  /** The instructions that prove it, named (`#5 Token Transfer`). */
  readonly by: readonly string[];
}

const u64 = (d: Uint8Array, at: number): bigint | undefined =>
  d.length >= at + 8 ? Buffer.from(d.buffer, d.byteOffset, d.byteLength).readBigUInt64LE(at) : undefined;
const u32 = (d: Uint8Array, at: number): number | undefined =>
  d.length >= at + 4 ? Buffer.from(d.buffer, d.byteOffset, d.byteLength).readUInt32LE(at) : undefined;

/** The output of `intent` for `wallet` (base58) that `instructions` prove will arrive if the transaction lands. */
export function provenOutput(instructions: readonly DecodedInstruction[], intent: Pick<OrderIntent, 'side' | 'mint'>, wallet: string): ProvenOutput {
  let amount = 0n;
  const by: string[] = [];
  const add = (i: number, ix: DecodedInstruction, n: bigint): void => {
    amount += n;
    by.push(`#${i + 1} ${instructionName(ix)}`);
  };
  if (intent.side === 'sell') {
    instructions.forEach((ix, i) => {
      if (ix.program !== SYSTEM_PROGRAM || u32(ix.data, 0) !== 2) return;
      const lamports = u64(ix.data, 4);
      if (lamports !== undefined && ix.accounts[1] === wallet && ix.accounts[0] !== wallet) add(i, ix, lamports);
    });
    return { amount, by };
  }
  const classic = associatedAddress(wallet, intent.mint, 'classic');
  const t22 = associatedAddress(wallet, intent.mint, '2022');
  const ours = (a: string | undefined): boolean => a === wallet || a === classic || a === t22;
  instructions.forEach((ix, i) => {
    const [tag, sub] = [ix.data[0], ix.data[1]];
    const a = ix.accounts;
    if (ix.program === TOKEN_PROGRAM) {
      if (tag === 3 && a[1] === classic && !ours(a[0])) {
        const n = u64(ix.data, 1);
        if (n !== undefined) add(i, ix, n);
      } else if (tag === 12 && a[2] === classic && a[1] === intent.mint && !ours(a[0])) {
        const n = u64(ix.data, 1);
        if (n !== undefined) add(i, ix, n);
      }
    } else if (ix.program === TOKEN_2022_PROGRAM && tag === 26 && sub === 1 && a[2] === t22 && a[1] === intent.mint && !ours(a[0])) {
      // TransferCheckedWithFee: amount u64 at 2, decimals u8 at 10, fee u64 at 11 (the program checks the fee)
      const gross = u64(ix.data, 2);
      const fee = u64(ix.data, 11);
      if (gross !== undefined && fee !== undefined && gross > fee) add(i, ix, gross - fee);
    }
  });
  return { amount, by };
}
