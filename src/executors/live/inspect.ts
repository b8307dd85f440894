/**
 * Inspection before signing. A built swap is signed only if: the fee payer is our wallet, every
 * called program is on the allow list, the priority fee fits the intent's budget, and a simulation
 * shows no more SOL or tokens leaving our wallet than the intent plus fee budget, with the output
 * arriving in an account our wallet owns. The answer is a value: pass, or a coded rejection.
 */
import {
  ComputeBudgetProgram,
  PublicKey,
  SystemProgram,
  VersionedTransaction,
  type Transaction,
  type VersionedMessage,
  type Message,
} from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '../../client/spl-token.js';
import type { ErrorCode } from '../../core/error-codes.js';
import type { OrderIntent } from '../../engine/execution-port.js';
import type { BuiltSwap, LiveRpcPort, RpcAccount } from './ports.js';

/** Programs every swap may call besides the venue programs. */
export const BASE_ALLOWED_PROGRAMS: readonly string[] = [
  ComputeBudgetProgram.programId.toBase58(),
  SystemProgram.programId.toBase58(),
  TOKEN_PROGRAM_ID.toBase58(),
  TOKEN_2022_PROGRAM_ID.toBase58(),
  ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
];

/** Base fee per signature (lamports). */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_COMPUTE_UNITS = 1_400_000n;
/** Tries of the pre-state read and simulation pair. */
const READ_TRIES = 4;

export interface InspectionPolicy {
  /** Program ids (base58) a swap may call; {@link BASE_ALLOWED_PROGRAMS} plus the venues'. */
  readonly allowedPrograms: ReadonlySet<string>;
  /** Lamports allowed beyond intent and fees for rent of accounts the swap opens (default one token account). */
  readonly rentBudgetLamports: bigint;
}

export type InspectionResult =
  | {
      readonly ok: true;
      readonly blockhash: string;
      readonly priorityFeeLamports: bigint;
      /** Simulated change of our output balance (tokens for a buy, lamports for a sell). */
      readonly simulatedOut: bigint;
    }
  | { readonly ok: false; readonly code: ErrorCode; readonly reason: string };

const reject = (code: ErrorCode, reason: string): InspectionResult => ({ ok: false, code, reason });

/** Inspects a built swap for `intent` on behalf of `wallet`. Never signs; never throws for a bad transaction. */
export async function inspectSwap(
  built: BuiltSwap,
  intent: OrderIntent,
  wallet: PublicKey,
  rpc: Pick<LiveRpcPort, 'simulateTransaction' | 'getMultipleAccounts'>,
  policy: InspectionPolicy,
  signal?: AbortSignal,
): Promise<InspectionResult> {
  const message = messageOf(built.transaction);
  const keys = message.staticAccountKeys;
  const payer = keys[0];
  if (!payer?.equals(wallet)) {
    return reject('LIVE_INSPECTION_FEE_PAYER', `fee payer is ${payer?.toBase58() ?? 'missing'}, expected our wallet ${wallet.toBase58()}`);
  }
  for (const ix of message.compiledInstructions) {
    const program = keys[ix.programIdIndex]?.toBase58();
    if (program === undefined || !policy.allowedPrograms.has(program)) {
      return reject('LIVE_INSPECTION_PROGRAM', `instruction calls program ${program ?? '(from a lookup table)'} which is not in execution.allowedPrograms`);
    }
  }
  const priorityFee = priorityFeeOf(message);
  if (priorityFee > intent.priorityFeeLamports) {
    return reject('LIVE_INSPECTION_PRIORITY_FEE', `priority fee ${priorityFee} lamports exceeds the intent budget ${intent.priorityFeeLamports}`);
  }
  const feeBudget = LAMPORTS_PER_SIGNATURE * BigInt(message.header.numRequiredSignatures) + intent.priorityFeeLamports;

  const mint = new PublicKey(intent.mint);
  const ataClassic = getAssociatedTokenAddressSync(mint, wallet, true, TOKEN_PROGRAM_ID);
  const ata2022 = getAssociatedTokenAddressSync(mint, wallet, true, TOKEN_2022_PROGRAM_ID);
  // Pre-state and simulation must describe the same slot: another of our transactions landing in
  // between would otherwise look like an outflow. Re-read a few times, then judge what we have.
  // A failed read is retried too; only when every try failed is the swap rejected (unsigned).
  let pre: Awaited<ReturnType<LiveRpcPort['getMultipleAccounts']>> | undefined;
  let sim: Awaited<ReturnType<LiveRpcPort['simulateTransaction']>> | undefined;
  let ata = ataClassic;
  for (let read = 0; ; read++) {
    try {
      pre = await rpc.getMultipleAccounts([wallet.toBase58(), mint.toBase58(), ataClassic.toBase58(), ata2022.toBase58()], {
        commitment: 'processed',
        encoding: 'base64',
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (signal?.aborted || read >= READ_TRIES - 1) return reject('LIVE_INSPECTION_SIMULATION', `could not read our accounts before signing (${e instanceof Error ? e.message : String(e)})`);
      continue;
    }
    const mintAccount = pre.value[1];
    if (!pre.value[0]) return reject('LIVE_INSPECTION_OUTFLOW', `our wallet ${wallet.toBase58()} does not exist on chain (no SOL)`);
    if (!mintAccount) return reject('LIVE_INSPECTION_OUTPUT', `mint ${intent.mint} does not exist on chain`);
    ata = mintAccount.owner === TOKEN_2022_PROGRAM_ID.toBase58() ? ata2022 : ataClassic;
    try {
      sim = await rpc.simulateTransaction(built.base64, {
        sigVerify: false,
        replaceRecentBlockhash: false,
        commitment: 'processed',
        accounts: { addresses: [wallet.toBase58(), ata.toBase58()], encoding: 'base64' },
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (signal?.aborted || read >= READ_TRIES - 1) return reject('LIVE_INSPECTION_SIMULATION', `simulation call failed (${e instanceof Error ? e.message : String(e)})`);
      continue;
    }
    if (sim.context.slot === pre.context.slot || read >= READ_TRIES - 1) break;
  }
  if (!pre || !sim) return reject('LIVE_INSPECTION_SIMULATION', 'could not read our accounts and simulate at the same time');
  const preWallet = pre.value[0]!;
  const preAta = ata === ata2022 ? pre.value[3] : pre.value[2];
  if (sim.value.err !== null) return reject('LIVE_INSPECTION_SIMULATION', `simulation returned error ${JSON.stringify(sim.value.err)}`);
  const [postWallet, postAta] = sim.value.accounts ?? [];
  if (!postWallet) return reject('LIVE_INSPECTION_SIMULATION', 'simulation did not return our wallet account');

  const solDelta = postWallet.lamports - preWallet.lamports;
  const preTokens = tokenAmount(preAta ?? null, wallet);
  const postTokens = tokenAmount(postAta ?? null, wallet);
  if (postAta && postTokens === undefined) {
    return reject('LIVE_INSPECTION_OUTPUT', `token account ${ata.toBase58()} is not owned by our wallet after the swap`);
  }
  const tokenDelta = (postTokens ?? 0n) - (preTokens ?? 0n);
  const blockhash = message.recentBlockhash;

  if (intent.side === 'buy') {
    const maxOut = intent.amountIn + feeBudget + policy.rentBudgetLamports;
    if (-solDelta > maxOut) {
      return reject('LIVE_INSPECTION_OUTFLOW', `simulation takes ${-solDelta} lamports from our wallet; the intent allows at most ${maxOut} (amount + fees + rent)`);
    }
    if (tokenDelta <= 0n) {
      return reject('LIVE_INSPECTION_OUTPUT', `simulation delivers no ${intent.mint} tokens to our account ${ata.toBase58()}`);
    }
    return { ok: true, blockhash, priorityFeeLamports: priorityFee, simulatedOut: tokenDelta };
  }
  if (-tokenDelta > intent.amountIn) {
    return reject('LIVE_INSPECTION_OUTFLOW', `simulation takes ${-tokenDelta} raw tokens from our account; the intent sells ${intent.amountIn}`);
  }
  if (-solDelta > feeBudget + policy.rentBudgetLamports) {
    return reject('LIVE_INSPECTION_OUTFLOW', `simulation takes ${-solDelta} lamports from our wallet on a sell; fees allow at most ${feeBudget + policy.rentBudgetLamports}`);
  }
  if (solDelta + feeBudget <= 0n) {
    return reject('LIVE_INSPECTION_OUTPUT', 'simulation delivers no SOL to our wallet for the sold tokens');
  }
  return { ok: true, blockhash, priorityFeeLamports: priorityFee, simulatedOut: solDelta };
}

/** The compiled message of a versioned or legacy transaction. */
export function messageOf(tx: VersionedTransaction | Transaction): VersionedMessage | Message {
  return tx instanceof VersionedTransaction ? tx.message : tx.compileMessage();
}

/** Priority fee in lamports set by ComputeBudget instructions: ceil(unit limit × unit price / 1e6). */
export function priorityFeeOf(message: VersionedMessage | Message): bigint {
  const budgetProgram = ComputeBudgetProgram.programId;
  let limit: bigint | undefined;
  let microLamports = 0n;
  let others = 0n;
  for (const ix of message.compiledInstructions) {
    const program = message.staticAccountKeys[ix.programIdIndex];
    const data = Buffer.from(ix.data);
    if (program?.equals(budgetProgram)) {
      if (data[0] === 2 && data.length >= 5) limit = BigInt(data.readUInt32LE(1));
      else if (data[0] === 3 && data.length >= 9) microLamports = data.readBigUInt64LE(1);
    } else {
      others++;
    }
  }
  const units = limit ?? (others * DEFAULT_UNITS_PER_INSTRUCTION < MAX_COMPUTE_UNITS ? others * DEFAULT_UNITS_PER_INSTRUCTION : MAX_COMPUTE_UNITS);
  const micro = units * microLamports;
  return (micro + 999_999n) / 1_000_000n;
}

/** Raw amount of an SPL token account owned by `owner`; undefined if absent or owned by someone else. */
export function tokenAmount(account: RpcAccount | null, owner: PublicKey): bigint | undefined {
  if (!account) return undefined;
  const data = Buffer.from(account.data[0], 'base64');
  if (data.length < 72) return undefined;
  if (!new PublicKey(data.subarray(32, 64)).equals(owner)) return undefined;
  return data.readBigUInt64LE(64);
}
