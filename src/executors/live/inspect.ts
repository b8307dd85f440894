/**
 * Inspection before signing. A built swap is signed only if: the fee payer is our wallet, at most
 * `maxCoSigners` others must sign (and have signed), every called program is on the allow list,
 * the priority fee fits the intent's budget, no instruction of the base programs moves,
 * delegates, re-assigns or closes an account of ours beyond the intended input and output
 * (instruction-checks.ts), and, in `simulate` mode, a simulation shows no more SOL or tokens
 * leaving than the intent plus fee budget, every token account our wallet owns that the
 * transaction can write keeping its tokens, owner, delegate and close authority (except the
 * intended input), and the output arriving in an account our wallet owns, rent apart
 * (balance-judge.ts); in `static` mode, fixed transfers prove the output (output-proof.ts) and a
 * buy's mint cannot take it back (mint-check.ts). The answer is a value: pass, or a coded
 * rejection. Inspection decodes the very wire bytes that get signed.
 */
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  SystemProgram,
  VersionedTransaction,
  type Message,
  type PublicKey,
  type Transaction,
  type VersionedMessage,
} from '@solana/web3.js';
import { keyText } from '../../client/key-text.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../../client/spl-token.js';
import { isWritableIndex, parseWireTransaction, type WireTransaction } from '../../client/wire-transaction.js';
import { BoundedMap, ChainpilotError } from '../../core/index.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import {
  ATA_PROGRAM,
  checkInstructions,
  COMPUTE_BUDGET_PROGRAM,
  instructionName,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  type DecodedInstruction,
} from './instruction-checks.js';
import type { BuiltSwap, LiveRpcPort, RpcAccount } from './ports.js';
import { checkMint, type MintVerdict } from './mint-check.js';
import { swapAccountsOf } from './swap-accounts.js';
import { minOutOf } from '../admission.js';
import { provenOutput } from './output-proof.js';
import { judgeBalances, sameOwnAccounts } from './balance-judge.js';
import { reject, type InspectionResult } from './inspection-result.js';

export type { InspectionResult } from './inspection-result.js';
export { tokenAccountOf, type TokenAccountView } from './balance-judge.js';

/** Programs every swap may call besides the venue programs. */
export const BASE_ALLOWED_PROGRAMS: readonly string[] = [
  ComputeBudgetProgram.programId.toBase58(),
  SystemProgram.programId.toBase58(),
  TOKEN_PROGRAM_ID.toBase58(),
  TOKEN_2022_PROGRAM_ID.toBase58(),
  ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
];

/** Co-signers a swap may require besides our wallet, unless the policy says otherwise. */
export const DEFAULT_MAX_CO_SIGNERS = 1;
/** Programs whose instructions inspection decodes (compute budget names no accounts). */
const BASE_PROGRAMS: ReadonlySet<string> = new Set([SYSTEM_PROGRAM, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, ATA_PROGRAM]);

/** Base fee per signature (lamports). */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_COMPUTE_UNITS = 1_400_000n;
/** Tries of the pre-state read and simulation pair. */
const READ_TRIES = 4;

/**
 * `simulate`: instruction checks plus the RPC simulation; `static`: instruction checks, the output
 * proven from fixed transfers and, on a buy, the mint read (mint-check.ts).
 */
export type InspectionMode = 'simulate' | 'static';

export interface InspectionPolicy {
  /** Program ids (base58) a swap may call; {@link BASE_ALLOWED_PROGRAMS} plus the venues'. */
  readonly allowedPrograms: ReadonlySet<string>;
  /** Lamports allowed beyond intent and fees for rent of accounts the swap opens (default one token account). */
  readonly rentBudgetLamports: bigint;
  /** Default `simulate`. */
  readonly mode?: InspectionMode;
  /**
   * Signers besides our wallet a swap may require (default {@link DEFAULT_MAX_CO_SIGNERS}: the
   * simulator's swap service and RFQ-style venues co-sign once; aggregators need none). Our wallet
   * pays the base fee of every required signature.
   */
  readonly maxCoSigners?: number;
  /**
   * Least output accepted (raw tokens of the intent's mint on a buy, lamports on a sell); default
   * the intent's own (`minOutOf(intent, intent.slippageBps)`, see executors/admission.ts).
   */
  readonly minOut?: bigint;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The message of a wire transaction and its static account keys as text. */
interface WireMessage {
  readonly tx: WireTransaction;
  readonly staticKeys: readonly string[];
}

/** Every account key in index order: static keys, then loaded writable, then loaded read-only. */
function allKeys(w: WireMessage, tables?: ReadonlyMap<string, readonly string[]>): string[] {
  const keys = [...w.staticKeys];
  if (w.tx.lookups.length === 0) return keys;
  const readonly: string[] = [];
  for (const l of w.tx.lookups) {
    const table = keyText(l.table);
    const addresses = tables?.get(table);
    const at = (i: number): string => addresses?.[i] ?? `lookup:${table}#${i}`;
    for (const i of l.writableIndexes) keys.push(at(i));
    for (const i of l.readonlyIndexes) readonly.push(at(i));
  }
  for (const k of readonly) keys.push(k);
  return keys;
}

function decodeInstructions(w: WireMessage, keys: readonly string[]): DecodedInstruction[] {
  return w.tx.instructions.map((ix) => {
    const accounts: string[] = [];
    for (const i of ix.accountIndexes) accounts.push(keys[i] ?? `missing#${i}`);
    return { program: keys[ix.programIndex] ?? '', accounts, data: ix.data };
  });
}

/** Base58 text of our wallet's key, once per key object (web3.js encodes it afresh on every call). */
const walletTexts = new WeakMap<PublicKey, string>();
function addressOf(wallet: PublicKey): string {
  let text = walletTexts.get(wallet);
  if (text === undefined) walletTexts.set(wallet, (text = wallet.toBase58()));
  return text;
}

/** Inspects a built swap for `intent` on behalf of `wallet`. Never signs; never throws for a bad transaction. */
export async function inspectSwap(
  built: BuiltSwap,
  intent: OrderIntent,
  wallet: PublicKey,
  rpc: Pick<LiveRpcPort, 'simulateTransaction' | 'getMultipleAccounts'>,
  policy: InspectionPolicy,
  signal?: AbortSignal,
): Promise<InspectionResult> {
  const parsed = parseWireTransaction(built.raw);
  if (!parsed.ok) return reject('LIVE_INSPECTION_INSTRUCTION', `the built transaction cannot be decoded (${parsed.reason})`);
  const tx = parsed.tx;
  const w: WireMessage = { tx, staticKeys: tx.staticKeys.map(keyText) };
  const walletAddress = addressOf(wallet);
  const payer = w.staticKeys[0];
  if (payer !== walletAddress) {
    return reject('LIVE_INSPECTION_FEE_PAYER', `fee payer is ${payer ?? 'missing'}, expected our wallet ${walletAddress}`);
  }
  const signers = checkSigners(built.raw, w, policy.maxCoSigners ?? DEFAULT_MAX_CO_SIGNERS);
  if (signers) return signers;
  for (const ix of tx.instructions) {
    const program = w.staticKeys[ix.programIndex];
    if (program === undefined || !policy.allowedPrograms.has(program)) {
      return reject('LIVE_INSPECTION_PROGRAM', `instruction calls program ${program ?? '(from a lookup table)'} which is not in execution.allowedPrograms`);
    }
  }
  const priorityFee = wirePriorityFee(w);
  if (priorityFee > intent.priorityFeeLamports) {
    return reject('LIVE_INSPECTION_PRIORITY_FEE', `priority fee ${priorityFee} lamports exceeds the intent budget ${intent.priorityFeeLamports}`);
  }
  const viaLookups = tx.lookups.length > 0; // a venue may reach a token program through a table
  const reached = {
    classic: viaLookups || w.staticKeys.includes(TOKEN_PROGRAM),
    token2022: viaLookups || w.staticKeys.includes(TOKEN_2022_PROGRAM),
  };
  const mode = policy.mode ?? 'simulate';
  const decoded = decodeInstructions(w, allKeys(w));
  if (mode === 'static') {
    const hidden = hiddenLookup(decoded);
    if (hidden) return hidden;
  }
  let ours = swapAccountsOf(intent, walletAddress, reached, decoded);
  // Simulate mode judges a v0 transaction's instructions once its tables are read (below): with
  // placeholders for the loaded addresses, an honest swap whose mint sits in a table would be refused.
  if (mode === 'static' || tx.lookups.length === 0) {
    const staticVerdict = checkInstructions(decoded, intent, ours);
    if (!staticVerdict.ok) return staticVerdict;
  }
  const blockhash = keyText(tx.recentBlockhash);
  const minOut = policy.minOut ?? minOutOf(intent, intent.slippageBps);
  if (mode === 'static') {
    const proven = provenOutput(decoded, intent, walletAddress);
    if (proven.amount < minOut) {
      const unit = intent.side === 'buy' ? `raw ${intent.mint}` : 'lamports';
      const source = proven.by.length > 0 ? `from instruction ${proven.by.join(', ')}` : 'from no instruction';
      return reject(
        'LIVE_INSPECTION_OUTPUT',
        `static inspection proves ${proven.amount} ${unit} arriving ${source}; the intent accepts at least ${minOut} (a venue program's output cannot be read: use simulate mode)`,
      );
    }
    if (intent.side === 'buy') {
      // The output arrives; it must also stay ours once the transaction ends (mint-check.ts).
      const read = async (mint: string): Promise<RpcAccount | null> =>
        (await rpc.getMultipleAccounts([mint], { commitment: 'processed', encoding: 'base64', ...(signal ? { signal } : {}) })).value[0] ?? null;
      let held: MintVerdict;
      try {
        held = await checkMint(intent.mint, read);
      } catch (e) {
        return reject('LIVE_INSPECTION_OUTPUT', `static inspection could not read mint ${intent.mint} to prove the output stays ours (${errorText(e)})`);
      }
      if (!held.ok) return reject('LIVE_INSPECTION_OUTPUT', `static inspection cannot prove the output stays ours: ${held.reason}`);
    }
    return { ok: true, blockhash, priorityFeeLamports: priorityFee, provenOut: proven.amount };
  }

  const feeBudget = LAMPORTS_PER_SIGNATURE * BigInt(tx.requiredSignatures) + intent.priorityFeeLamports;
  let keys: string[];
  try {
    keys = await resolvedKeys(w, rpc, signal);
  } catch (e) {
    return reject('LIVE_INSPECTION_SIMULATION', `could not read the transaction's address lookup tables (${errorText(e)})`);
  }
  if (tx.lookups.length > 0) {
    // Loaded addresses are known now: judge the instructions again with real addresses.
    const resolved = decodeInstructions(w, keys);
    ours = swapAccountsOf(intent, walletAddress, reached, resolved);
    const again = checkInstructions(resolved, intent, ours);
    if (!again.ok) return again;
  }
  // Every account the transaction can write, our wallet first: only these can change.
  const watched = [walletAddress];
  for (let i = 1; i < keys.length; i++) if (isWritableIndex(tx, i) && keys[i] !== walletAddress) watched.push(keys[i]!);

  // Pre-state and simulation must describe the same state: another of our transactions landing in
  // between would otherwise count as this one's outflow. Both calls must report the same slot
  // (repeated up to READ_TRIES times, then judged as they are). A slot can change state within
  // itself, so a verdict against the swap stands only when a read after the simulation finds our
  // accounts as the pre-state did; if they moved, that read is the pre-state of a new simulation.
  // A failed call is retried too; only when the tries are used up is the swap rejected (unsigned).
  const options = { commitment: 'processed' as const, encoding: 'base64' as const, ...(signal ? { signal } : {}) };
  let tries = 0;
  let moves = 0;
  let pre: Awaited<ReturnType<LiveRpcPort['getMultipleAccounts']>> | undefined;
  for (;;) {
    const last = tries >= READ_TRIES - 1;
    if (!pre) {
      try {
        pre = await rpc.getMultipleAccounts(watched, options);
      } catch (e) {
        if (signal?.aborted || last) return reject('LIVE_INSPECTION_SIMULATION', `could not read our accounts before signing (${errorText(e)})`);
        tries++;
        continue;
      }
      if (!pre.value[0]) return reject('LIVE_INSPECTION_OUTFLOW', `our wallet ${walletAddress} does not exist on chain (no SOL)`);
    }
    let sim: Awaited<ReturnType<LiveRpcPort['simulateTransaction']>>;
    try {
      sim = await rpc.simulateTransaction(built.base64, {
        sigVerify: false,
        replaceRecentBlockhash: false,
        commitment: 'processed',
        accounts: { addresses: watched, encoding: 'base64' },
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (signal?.aborted || last) return reject('LIVE_INSPECTION_SIMULATION', `simulation call failed (${errorText(e)})`);
      tries++;
      pre = undefined;
      continue;
    }
    if (sim.context.slot !== pre.context.slot && !last) {
      tries++;
      pre = undefined;
      continue;
    }
    if (sim.value.err !== null) return reject('LIVE_INSPECTION_SIMULATION', `simulation returned error ${JSON.stringify(sim.value.err)}`);
    const post = sim.value.accounts ?? [];
    if (post.length !== watched.length || !post[0])
      return reject('LIVE_INSPECTION_SIMULATION', 'simulation did not return every account the transaction can write');
    const fees = { budget: feeBudget, paid: LAMPORTS_PER_SIGNATURE * BigInt(tx.requiredSignatures) + priorityFee };
    const verdict = judgeBalances(intent, ours, watched, pre.value, post, fees, { rentBudget: policy.rentBudgetLamports, minOut }, blockhash, priorityFee);
    if (verdict.ok) return verdict;
    let again: Awaited<ReturnType<LiveRpcPort['getMultipleAccounts']>>;
    try {
      again = await rpc.getMultipleAccounts(watched, options);
    } catch (e) {
      if (signal?.aborted || last) return reject('LIVE_INSPECTION_SIMULATION', `could not re-read our accounts to confirm a rejection (${errorText(e)})`);
      tries++;
      pre = undefined;
      continue;
    }
    if (sameOwnAccounts(walletAddress, pre.value, again.value)) return verdict; // the simulation ran on the state `pre` describes
    if (++moves >= READ_TRIES) {
      return reject('LIVE_INSPECTION_SIMULATION', `our accounts changed while the simulation ran, ${moves} times (transactions of ours landing?); not signed`);
    }
    pre = again;
  }
}

/**
 * Without chain reads a table-loaded address could be one of ours: a base-program instruction
 * naming one cannot be judged, so static mode refuses it (simulate mode resolves the tables).
 */
function hiddenLookup(decoded: readonly DecodedInstruction[]): InspectionResult | undefined {
  const hidden = decoded.findIndex((ix) => BASE_PROGRAMS.has(ix.program) && ix.accounts.some((a) => a.startsWith('lookup:')));
  if (hidden < 0) return undefined;
  const ix = decoded[hidden]!;
  return reject(
    'LIVE_INSPECTION_INSTRUCTION',
    `instruction #${hidden + 1} (${instructionName(ix)}) names an account loaded from an address lookup table (${ix.accounts.find((a) => a.startsWith('lookup:')) ?? '?'}), which static inspection does not resolve: use simulate mode`,
  );
}

/**
 * Every required signature costs our wallet (the fee payer) a base fee, so the fee budget scales
 * with them and only `maxCoSigners` others may be required; each of those must have signed
 * already (a slot left empty is a signer we do not know, and the transaction could not land
 * without it). Our wallet's own slot is the fee payer's, checked before.
 */
function checkSigners(raw: Uint8Array, w: WireMessage, maxCoSigners: number): InspectionResult | undefined {
  const n = w.tx.requiredSignatures;
  if (n - 1 > maxCoSigners) {
    const others = w.staticKeys.slice(1, n);
    return reject(
      'LIVE_INSPECTION_SIGNERS',
      `the transaction requires ${n} signatures, ours and ${n - 1} others (${others.slice(0, 3).join(', ')}${n - 1 > 3 ? ', …' : ''}); at most ${maxCoSigners} co-signer(s) may sign with us, and our wallet pays ${LAMPORTS_PER_SIGNATURE} lamports for each`,
    );
  }
  for (let i = 1; i < n; i++) {
    const at = w.tx.signaturesOffset + 64 * i;
    if (raw.subarray(at, at + 64).every((b) => b === 0))
      return reject('LIVE_INSPECTION_SIGNERS', `required signer ${w.staticKeys[i] ?? '?'} has not signed: a co-signer must sign before our wallet does`);
  }
  return undefined;
}

/** Lookup tables are append-only: an address once at an index stays there, so they are cached. */
const MAX_TABLES = 256;
const tableCache = new BoundedMap<string, string[]>(MAX_TABLES);

async function resolvedKeys(w: WireMessage, rpc: Pick<LiveRpcPort, 'getMultipleAccounts'>, signal?: AbortSignal): Promise<string[]> {
  const lookups = w.tx.lookups;
  if (lookups.length === 0) return [...w.staticKeys];
  const needed = (l: (typeof lookups)[number]): boolean => {
    const known = tableCache.get(keyText(l.table));
    return !known || [...l.writableIndexes, ...l.readonlyIndexes].some((i) => i >= known.length);
  };
  const missing = lookups.filter(needed).map((l) => keyText(l.table));
  if (missing.length > 0) {
    const r = await rpc.getMultipleAccounts(missing, { commitment: 'processed', encoding: 'base64', ...(signal ? { signal } : {}) });
    missing.forEach((table, i) => {
      const account = r.value[i];
      if (!account) throw new ChainpilotError('LIVE_INSPECTION_SIMULATION', `lookup table ${table} does not exist`, { retry: 'not_retryable' });
      const state = AddressLookupTableAccount.deserialize(Buffer.from(account.data[0], 'base64'));
      tableCache.set(
        table,
        state.addresses.map((a) => a.toBase58()),
      );
    });
  }
  const tables = new Map(lookups.map((l) => [keyText(l.table), tableCache.get(keyText(l.table)) ?? []]));
  const keys = allKeys(w, tables);
  if (keys.some((k) => k.startsWith('lookup:')))
    throw new ChainpilotError('LIVE_INSPECTION_SIMULATION', 'an index points past the end of its lookup table', { retry: 'not_retryable' });
  return keys;
}

/** The compiled message of a versioned or legacy transaction. */
export function messageOf(tx: VersionedTransaction | Transaction): VersionedMessage | Message {
  return tx instanceof VersionedTransaction ? tx.message : tx.compileMessage();
}

/** Priority fee in lamports set by ComputeBudget instructions: ceil(unit limit × unit price / 1e6). */
export function priorityFeeOf(message: VersionedMessage | Message): bigint {
  const budgetProgram = ComputeBudgetProgram.programId;
  return priorityFeeLamports(
    message.compiledInstructions.map((ix) => ({ budget: message.staticAccountKeys[ix.programIdIndex]?.equals(budgetProgram) === true, data: ix.data })),
  );
}

/** {@link priorityFeeOf} of the parsed wire message (no objects). */
function wirePriorityFee(w: WireMessage): bigint {
  return priorityFeeLamports(w.tx.instructions.map((ix) => ({ budget: w.staticKeys[ix.programIndex] === COMPUTE_BUDGET_PROGRAM, data: ix.data })));
}

function priorityFeeLamports(instructions: readonly { readonly budget: boolean; readonly data: Uint8Array }[]): bigint {
  let limit: bigint | undefined;
  let microLamports = 0n;
  let others = 0n;
  for (const { budget, data } of instructions) {
    if (budget) {
      if (data[0] === 2 && data.length >= 5) limit = BigInt(u32le(data, 1));
      else if (data[0] === 3 && data.length >= 9) microLamports = BigInt(u32le(data, 1)) + (BigInt(u32le(data, 5)) << 32n);
    } else {
      others++;
    }
  }
  const units = limit ?? (others * DEFAULT_UNITS_PER_INSTRUCTION < MAX_COMPUTE_UNITS ? others * DEFAULT_UNITS_PER_INSTRUCTION : MAX_COMPUTE_UNITS);
  const micro = units * microLamports;
  return (micro + 999_999n) / 1_000_000n;
}

const u32le = (d: Uint8Array, at: number): number => (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16)) + d[at + 3]! * 0x1000000;
