/**
 * The static half of inspection: every instruction of the System, Token, Token-2022, Associated
 * Token Account and compute-budget programs is decoded, and one that moves, delegates, re-assigns
 * or closes an account our wallet owns beyond the intended input and output is refused, with a
 * reason that names the instruction (its 1-based position and decoded name). Instructions of the
 * allowed venue programs are not decoded here (their effects are what the simulation compares).
 *
 * Which of our accounts an instruction touches is known without reading the chain: our input and
 * output accounts and the token accounts the transaction creates for our wallet are recognised by
 * address (swap-accounts.ts), whatever signs the instruction (a Token-2022 permanent delegate needs
 * no approval of ours); any other token account of ours by its authority, our wallet, since
 * inspection never lets our wallet approve a delegate.
 */
import { ComputeBudgetProgram, SystemProgram } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../client/spl-token.js';
import type { ErrorCode } from '../../core/error-codes.js';
import { amountInOf, type BuyIntent, type SellIntent } from '../../engine/orders/execution-port.js';
import { closable, type SwapAccounts } from './swap-accounts.js';

export const SYSTEM_PROGRAM = SystemProgram.programId.toBase58();
export const TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58();
export const TOKEN_2022_PROGRAM = TOKEN_2022_PROGRAM_ID.toBase58();
export const ATA_PROGRAM = ASSOCIATED_TOKEN_PROGRAM_ID.toBase58();
export const COMPUTE_BUDGET_PROGRAM = ComputeBudgetProgram.programId.toBase58();
const WSOL_MINT_TEXT = 'So11111111111111111111111111111111111111112';

/** One instruction with its accounts resolved to addresses (unresolved lookups as `lookup:…`). */
export interface DecodedInstruction {
  readonly program: string;
  readonly accounts: readonly string[];
  readonly data: Uint8Array;
}

export type InstructionVerdict =
  | {
      readonly ok: true;
      /** Lamports System instructions take out of the wallet (transfers and new-account funding). */
      readonly solOutLamports: bigint;
      /** Raw tokens token instructions signed by our wallet take from the intended input. */
      readonly inputOutRaw: bigint;
    }
  | { readonly ok: false; readonly code: ErrorCode; readonly reason: string };

const SYSTEM_NAMES = [
  'CreateAccount',
  'Assign',
  'Transfer',
  'CreateAccountWithSeed',
  'AdvanceNonceAccount',
  'WithdrawNonceAccount',
  'InitializeNonceAccount',
  'AuthorizeNonceAccount',
  'Allocate',
  'AllocateWithSeed',
  'AssignWithSeed',
  'TransferWithSeed',
  'UpgradeNonceAccount',
];
const TOKEN_NAMES = [
  'InitializeMint',
  'InitializeAccount',
  'InitializeMultisig',
  'Transfer',
  'Approve',
  'Revoke',
  'SetAuthority',
  'MintTo',
  'Burn',
  'CloseAccount',
  'FreezeAccount',
  'ThawAccount',
  'TransferChecked',
  'ApproveChecked',
  'MintToChecked',
  'BurnChecked',
  'InitializeAccount2',
  'SyncNative',
  'InitializeAccount3',
  'InitializeMultisig2',
  'InitializeMint2',
  'GetAccountDataSize',
  'InitializeImmutableOwner',
  'AmountToUiAmount',
  'UiAmountToAmount',
  'InitializeMintCloseAuthority',
  'TransferFeeExtension',
  'ConfidentialTransferExtension',
  'DefaultAccountStateExtension',
  'Reallocate',
  'MemoTransferExtension',
  'CreateNativeMint',
  'InitializeNonTransferableMint',
  'InterestBearingMintExtension',
  'CpiGuardExtension',
  'InitializePermanentDelegate',
  'TransferHookExtension',
  'ConfidentialTransferFeeExtension',
  'WithdrawExcessLamports',
  'MetadataPointerExtension',
  'GroupPointerExtension',
  'GroupMemberPointerExtension',
];
const TRANSFER_FEE_NAMES = [
  'InitializeTransferFeeConfig',
  'TransferCheckedWithFee',
  'WithdrawWithheldTokensFromMint',
  'WithdrawWithheldTokensFromAccounts',
  'HarvestWithheldTokensToMint',
  'SetTransferFee',
];
const ATA_NAMES = ['Create', 'CreateIdempotent', 'RecoverNested'];
const BUDGET_NAMES = ['RequestUnits', 'RequestHeapFrame', 'SetComputeUnitLimit', 'SetComputeUnitPrice', 'SetLoadedAccountsDataSizeLimit'];

/** Token instructions that cannot move, delegate, re-assign or close anything of ours. */
const HARMLESS_TOKEN = new Set([0, 1, 2, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 31, 32]);
/** System instructions that cannot move, re-assign or re-size our wallet (nonce init, upgrade). */
const HARMLESS_SYSTEM = new Set([6, 12]);
/** System AdvanceNonceAccount: a transaction carrying it uses a durable nonce and never expires. */
const ADVANCE_NONCE = 4;

const u64 = (d: Uint8Array, at: number): bigint | undefined =>
  d.length >= at + 8 ? Buffer.from(d.buffer, d.byteOffset, d.byteLength).readBigUInt64LE(at) : undefined;
const u32 = (d: Uint8Array, at: number): number | undefined =>
  d.length >= at + 4 ? Buffer.from(d.buffer, d.byteOffset, d.byteLength).readUInt32LE(at) : undefined;

/** Human name of an instruction: `Token-2022 TransferCheckedWithFee`, `System Transfer`, …. */
export function instructionName(ix: DecodedInstruction): string {
  const d = ix.data;
  switch (ix.program) {
    case SYSTEM_PROGRAM:
      return `System ${SYSTEM_NAMES[u32(d, 0) ?? -1] ?? `instruction ${u32(d, 0) ?? '(no data)'}`}`;
    case TOKEN_PROGRAM:
    case TOKEN_2022_PROGRAM: {
      const prefix = ix.program === TOKEN_PROGRAM ? 'Token' : 'Token-2022';
      const tag = d[0];
      if (tag === 26) return `${prefix} ${TRANSFER_FEE_NAMES[d[1] ?? -1] ?? 'TransferFeeExtension'}`;
      return `${prefix} ${TOKEN_NAMES[tag ?? -1] ?? `instruction ${tag ?? '(no data)'}`}`;
    }
    case ATA_PROGRAM:
      return `AssociatedToken ${ATA_NAMES[d.length === 0 ? 0 : (d[0] ?? -1)] ?? `instruction ${d[0] ?? ''}`}`;
    case COMPUTE_BUDGET_PROGRAM:
      return `ComputeBudget ${BUDGET_NAMES[d[0] ?? -1] ?? `instruction ${d[0] ?? '(no data)'}`}`;
    default:
      return `program ${ix.program}`;
  }
}

/**
 * Checks every base-program instruction of a swap for `intent`. System transfers and new-account
 * funding from our wallet may not exceed the intended input (a buy's `spendLamports`, nothing on a
 * sell): rent is paid only by the Associated Token Account program creating an account our wallet
 * owns of the intent's mint (or of wrapped SOL), never by a System instruction. A durable-nonce
 * transaction (AdvanceNonceAccount anywhere) is refused: it never expires.
 */
export function checkInstructions(
  instructions: readonly DecodedInstruction[],
  intent: (Pick<BuyIntent, 'side' | 'spendLamports'> | Pick<SellIntent, 'side' | 'sellRaw'>) & { readonly mint?: string },
  ours: SwapAccounts,
): InstructionVerdict {
  const wallet = ours.wallet;
  const isOurs = (a: string | undefined): boolean => a !== undefined && (a === wallet || ours.inputs.has(a) || ours.outputs.has(a) || ours.created.has(a));
  let solOut = 0n;
  let inputOut = 0n;
  let limits = 0;
  let prices = 0;
  const solAllowance = intent.side === 'buy' ? intent.spendLamports : 0n;
  const tokenAllowance = amountInOf(intent); // wrapped SOL on a buy (lamports), the mint's tokens on a sell

  for (let i = 0; i < instructions.length; i++) {
    const ix = instructions[i]!;
    const a = ix.accounts;
    const d = ix.data;
    const refuse = (what: string): InstructionVerdict => ({
      ok: false,
      code: 'LIVE_INSPECTION_INSTRUCTION',
      reason: `instruction #${i + 1} (${instructionName(ix)}) ${what}`,
    });
    const touchesOurs = (): boolean => a.some(isOurs);

    if (ix.program === COMPUTE_BUDGET_PROGRAM) {
      const tag = d[0];
      if (tag === 2) limits++;
      else if (tag === 3) prices++;
      else if (tag !== 1 && tag !== 4) return refuse('is not a compute-budget instruction a swap needs');
      if (limits > 1 || prices > 1) return refuse('repeats a compute-budget setting');
      continue;
    }

    if (ix.program === SYSTEM_PROGRAM) {
      const tag = u32(d, 0);
      if (tag === 2) {
        const lamports = u64(d, 4);
        if (lamports === undefined) return refuse('has truncated data');
        if (a[0] === wallet) {
          solOut += lamports;
          if (solOut > solAllowance)
            return refuse(
              `moves ${lamports} lamports from our wallet to ${a[1] ?? '?'}: SOL leaving by transfers would reach ${solOut}, beyond the intended input (${solAllowance}; rent only for our new token account of the intent's mint)`,
            );
        }
        continue;
      }
      if (tag === 0 || tag === 3) {
        // CreateAccount: lamports at 4; CreateAccountWithSeed: base (32), seed (u64 length + bytes), lamports.
        const seedLength = tag === 3 ? u64(d, 36) : 0n;
        const at = tag === 0 ? 4 : seedLength === undefined ? -1 : 44 + Number(seedLength);
        const lamports = at < 0 ? undefined : u64(d, at);
        if (lamports === undefined) return refuse('has truncated data');
        if (a[1] === wallet) return refuse('re-creates our wallet account');
        if (a[0] === wallet) {
          solOut += lamports;
          if (solOut > solAllowance)
            return refuse(
              `funds a new account with ${lamports} lamports from our wallet: SOL leaving would reach ${solOut}, beyond the intended input (${solAllowance}; rent only for our new token account of the intent's mint)`,
            );
        }
        continue;
      }
      if (tag === ADVANCE_NONCE) return refuse('advances a durable nonce: the transaction would never expire, so no rebuild could ever be safe');
      if (tag !== undefined && HARMLESS_SYSTEM.has(tag)) continue;
      if (touchesOurs()) return refuse('would move, re-assign or re-size our wallet or an account derived from it');
      if (tag === undefined || tag >= SYSTEM_NAMES.length) return refuse('is not a known System instruction');
      continue;
    }

    if (ix.program === TOKEN_PROGRAM || ix.program === TOKEN_2022_PROGRAM) {
      const tag = d[0];
      if (tag === undefined) return refuse('has no data');
      const transfer = tag === 3 || tag === 12 || (tag === 26 && d[1] === 1 && ix.program === TOKEN_2022_PROGRAM);
      if (transfer) {
        const authority = tag === 3 ? a[2] : a[3];
        const source = a[0];
        const amount = u64(d, tag === 26 ? 2 : 1);
        if (amount === undefined) return refuse('has truncated data');
        if (authority === wallet || isOurs(source)) {
          if (authority !== wallet)
            return refuse(`moves ${amount} raw tokens out of our token account ${source ?? '?'} on the signature of ${authority ?? '?'}, not our wallet`);
          if (source === undefined || !ours.inputs.has(source))
            return refuse(`moves ${amount} raw tokens out of our token account ${source ?? '?'}, which is not the intended input`);
          inputOut += amount;
          if (inputOut > tokenAllowance)
            return refuse(`moves ${amount} raw tokens out of our input account ${source}: ${inputOut} in total, beyond the intent's ${tokenAllowance}`);
        }
        continue;
      }
      if (tag === 9) {
        // CloseAccount [account, destination, owner]: only our input or output, rent back to our wallet.
        if (a[2] === wallet || isOurs(a[0])) {
          const account = a[0];
          if (account === undefined || !closable(ours, intent.side, account))
            return refuse(`closes our token account ${account ?? '?'}, which is neither the intended input nor the output`);
          if (a[1] !== wallet) return refuse(`closes our token account ${account} and sends its lamports to ${a[1] ?? '?'}, not our wallet`);
        }
        continue;
      }
      if (tag === 4 || tag === 13) {
        const owner = tag === 4 ? a[2] : a[3];
        const delegate = tag === 4 ? a[1] : a[2];
        if (owner === wallet || isOurs(a[0])) return refuse(`delegates our token account ${a[0] ?? '?'} to ${delegate ?? '?'}`);
        continue;
      }
      if (tag === 6) {
        if (a[1] === wallet || isOurs(a[0])) return refuse(`re-assigns an authority of our account ${a[0] ?? '?'}`);
        continue;
      }
      if (HARMLESS_TOKEN.has(tag)) continue;
      if (touchesOurs()) return refuse('moves, burns, freezes or re-configures an account of our wallet');
      continue;
    }

    if (ix.program === ATA_PROGRAM) {
      const tag = d.length === 0 ? 0 : d[0];
      if (tag === 0 || tag === 1) {
        // [funder, associated account, owner, mint, system, token program]
        if (a[0] === wallet && a[2] !== wallet) return refuse(`pays rent from our wallet for a token account of ${a[2] ?? '?'}`);
        const mint = a[3];
        if (a[0] === wallet && intent.mint !== undefined && mint !== intent.mint && mint !== WSOL_MINT_TEXT)
          return refuse(
            `pays rent from our wallet for a token account of mint ${mint ?? '?'}, which is neither the intent's mint ${intent.mint} nor wrapped SOL`,
          );
        continue;
      }
      if (touchesOurs()) return refuse('moves tokens between accounts of our wallet');
      return refuse('is not a known AssociatedToken instruction');
    }
  }
  return { ok: true, solOutLamports: solOut, inputOutRaw: inputOut };
}
