/**
 * The simulator's ledger: a LiteSVM runtime with real SPL mints, pool vaults and wallets, plus what
 * LiteSVM does not model: slots and block height on the simulator clock, a window of recent
 * blockhashes, commitment progression, a signature store that never forgets, fee-only failures,
 * slippage checked against the market model at landing, and injected faults.
 */
import { Keypair, PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { LiteSVM } from 'litesvm';
import { getBase58Decoder, getTransactionDecoder, type Address, type EncodedAccount, type Lamports as KitLamports } from '@solana/kit';
import { ChainpilotError, fromRaw, type Clock, type Logger, type Random, type TimerHandle } from '../../core/index.js';
import type { SimMarketPort, SimPool } from '../market-port.js';
import { createBlockWindow, type IssuedBlockhash } from './block-window.js';
import { createFaultPlan, type FaultPlan, type FaultRates, type LandingFault } from './faults.js';
import { readComputeBudget, transactionFeeLamports } from './fees.js';
import { parseTx, verifySignatures, type ParsedTx } from './parsed-tx.js';
import { mintData, mintSupply, readTokenAccount, tokenAccountData, TOKEN_PROGRAM_ID, ACCOUNT_SIZE, MINT_SIZE } from './spl-accounts.js';
import { decodeSwapMemo, MEMO_PROGRAM, type SwapTerms } from './swap-memo.js';
import { isRefusal, txErrorJson, type TxErrorJson } from './tx-error.js';
import { commitmentReached, type ConfirmationStatus, type LandedMeta, type TokenBalanceJson, type TxRecord } from './tx-record.js';

export interface LedgerOptions {
  readonly market: SimMarketPort;
  readonly clock: Clock;
  readonly random: Random;
  readonly log?: Logger;
  /** Simulator-clock milliseconds per slot (400 like mainnet). */
  readonly slotMs?: number;
  /** Blocks a blockhash stays valid (150 like mainnet). */
  readonly validBlocks?: number;
  /** Slots after landing before `confirmed` (1). */
  readonly confirmAfterSlots?: number;
  /** Slots after landing before `finalized` (32). */
  readonly finalizeAfterSlots?: number;
  /** Slots a status stays visible to queries that do not search history (300). */
  readonly statusCacheSlots?: number;
  readonly faults?: FaultRates;
}

/** Custom program error codes of fee-only failures the ledger applies itself. */
export const SLIPPAGE_EXCEEDED_ERROR = 6001;
export const INJECTED_FAILURE_ERROR = 6002;
export const POOL_CHANGED_ERROR = 6003;

export interface LedgerAccount {
  readonly address: string;
  readonly lamports: bigint;
  readonly owner: string;
  readonly data: Uint8Array;
  readonly executable: boolean;
}

/** A refusal of sendTransaction or simulateTransaction, in JSON-RPC terms. */
export interface LedgerRefusal {
  readonly ok: false;
  readonly rpcCode: number;
  readonly message: string;
  readonly data?: unknown;
}

export type SendResult = { readonly ok: true; readonly signature: string } | LedgerRefusal;

export interface SimulationResult {
  readonly err: TxErrorJson | null;
  readonly logs: readonly string[];
  readonly unitsConsumed: bigint;
  /** Post-state of the requested addresses (null when the account does not exist). */
  readonly accounts: readonly (LedgerAccount | null)[];
  readonly replacementBlockhash?: IssuedBlockhash;
}

export interface SignatureStatusView {
  readonly slot: number;
  readonly confirmations: number | null;
  readonly err: TxErrorJson | null;
  readonly confirmationStatus: ConfirmationStatus;
}

export interface LandedTransactionView {
  readonly slot: number;
  readonly blockTimeSec: number;
  readonly bytes: Uint8Array;
  readonly version: 'legacy' | 0;
  readonly meta: LandedMeta;
}

/** The accounts of one pool on the ledger. */
export interface PoolAccounts {
  readonly poolId: string;
  readonly mint: PublicKey;
  readonly decimals: number;
  /** Signs the vault side of swaps; its system account is the SOL vault. */
  readonly authority: Keypair;
  readonly tokenVault: PublicKey;
}

export interface Ledger {
  readonly faults: FaultPlan;
  slot(): number;
  blockHeight(): number;
  latestBlockhash(): IssuedBlockhash;
  isBlockhashValid(blockhash: string): boolean;
  /** Credits lamports (as a local validator's faucet would) and returns the airdrop's signature. */
  airdrop(address: string, lamports: bigint): string;
  account(address: string): LedgerAccount | undefined;
  balance(address: string): bigint;
  /** Token accounts owned by `owner`, optionally of one mint. */
  tokenAccountsByOwner(owner: string, mint?: string): LedgerAccount[];
  programAccounts(programId: string): LedgerAccount[];
  /** Lamports an account of `dataLength` bytes needs to be rent-exempt. */
  rentExemptLamports(dataLength: number): bigint;
  /** Decimals of a mint the ledger created (0 when unknown). */
  decimalsOf(mint: string): number;
  /** Slot of the last write to an account, when the ledger saw one. */
  lastWriteSlot(address: string): number | undefined;
  send(bytes: Uint8Array, options?: { readonly skipPreflight?: boolean }): SendResult;
  simulate(
    bytes: Uint8Array,
    options?: { readonly sigVerify?: boolean; readonly replaceRecentBlockhash?: boolean; readonly addresses?: readonly string[] },
  ): SimulationResult | LedgerRefusal;
  signatureStatus(signature: string, searchHistory: boolean): SignatureStatusView | null;
  transaction(signature: string, commitment?: ConfirmationStatus): LandedTransactionView | undefined;
  /** Per recent slot, the lowest priority fee paid by a landed transaction writing any of `accounts` (or all). */
  recentPrioritizationFees(accounts?: readonly string[]): { slot: number; prioritizationFee: number }[];
  /** The pool's accounts on the ledger, created on first use (mint, vault, authority). */
  poolAccounts(pool: SimPool): PoolAccounts;
  /** Stops producing slots. */
  stop(): void;
}

const base58 = getBase58Decoder();
const txDecoder = getTransactionDecoder();
const TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58();

/** Creates a ledger and starts producing slots on `options.clock`. */
export function createLedger(options: LedgerOptions): Ledger {
  const { market, clock, random } = options;
  const slotMs = options.slotMs ?? 400;
  const confirmAfter = options.confirmAfterSlots ?? 1;
  const finalizeAfter = options.finalizeAfterSlots ?? 32;
  const statusCacheSlots = options.statusCacheSlots ?? 300;
  const faults = createFaultPlan(random.fork('ledger-faults'), options.faults);
  const keyRandom = random.fork('ledger-keys');

  const svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false).withTransactionHistory(0n);
  const window = createBlockWindow(svm.latestBlockhash(), { validBlocks: options.validBlocks ?? 150, firstSlot: 1 });
  const mintAuthority = Keypair.fromSeed(keyRandom.bytes(32));
  const records = new Map<string, TxRecord>();
  const pending = new Map<number, ParsedTxWithFault[]>();
  const pools = new Map<string, PoolAccounts>();
  const mintDecimals = new Map<string, number>();
  const recentFees: { slot: number; fee: bigint; writable: readonly string[] }[] = [];
  const rentToken = svm.minimumBalanceForRentExemption(BigInt(ACCOUNT_SIZE));
  const rentMint = svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE));
  const rentSystem = svm.minimumBalanceForRentExemption(0n);

  interface ParsedTxWithFault {
    readonly tx: ParsedTx;
    readonly fault: LandingFault | undefined;
  }

  // --- accounts -------------------------------------------------------------------------------

  const getAccount = (a: string): LedgerAccount | undefined => {
    const acc = svm.getAccount(a as Address);
    if (!acc.exists) return undefined;
    return fromEncoded(acc);
  };
  const lastWrite = new Map<string, number>();
  const setAccount = (a: LedgerAccount): void => {
    lastWrite.set(a.address, window.slot());
    svm.setAccount({
      address: a.address as Address,
      lamports: a.lamports as KitLamports,
      programAddress: a.owner as Address,
      data: a.data,
      executable: a.executable,
      space: BigInt(a.data.length),
    });
  };
  const setLamports = (a: string, lamports: bigint): void => {
    const acc = getAccount(a);
    setAccount(acc ? { ...acc, lamports } : { address: a, lamports, owner: '11111111111111111111111111111111', data: new Uint8Array(), executable: false });
  };

  const ensureMint = (mint: string, decimals: number): PublicKey => {
    const key = new PublicKey(mint);
    if (!mintDecimals.has(mint)) {
      if (!getAccount(mint)) {
        setAccount({ address: mint, lamports: rentMint, owner: TOKEN_PROGRAM, data: mintData(mintAuthority.publicKey, 0n, decimals), executable: false });
      }
      mintDecimals.set(mint, decimals);
    }
    return key;
  };

  /** Mints `amountRaw` more into `tokenAccount` (keeps the mint's supply honest). */
  const mintInto = (mint: string, tokenAccount: string, owner: PublicKey, amountRaw: bigint): void => {
    const m = getAccount(mint);
    const decimals = mintDecimals.get(mint) ?? 0;
    if (m) setAccount({ ...m, data: mintData(mintAuthority.publicKey, mintSupply(m.data) + amountRaw, decimals) });
    const existing = getAccount(tokenAccount);
    const current = existing ? (readTokenAccount(existing.owner, existing.data)?.amountRaw ?? 0n) : 0n;
    setAccount({
      address: tokenAccount,
      lamports: existing?.lamports ?? rentToken,
      owner: TOKEN_PROGRAM,
      data: tokenAccountData(new PublicKey(mint), owner, current + amountRaw),
      executable: false,
    });
  };

  const tokenAmount = (tokenAccount: string): bigint => {
    const a = getAccount(tokenAccount);
    return a ? (readTokenAccount(a.owner, a.data)?.amountRaw ?? 0n) : 0n;
  };

  const poolAccounts = (pool: SimPool): PoolAccounts => {
    const known = pools.get(pool.poolId);
    if (known) return known;
    const mint = ensureMint(pool.mint, pool.decimals);
    const authority = Keypair.fromSeed(keyRandom.bytes(32));
    const tokenVault = getAssociatedTokenAddressSync(mint, authority.publicKey);
    mintInto(pool.mint, tokenVault.toBase58(), authority.publicKey, pool.tokenReserveRaw);
    setLamports(authority.publicKey.toBase58(), rentSystem + pool.solReserveLamports);
    const accounts: PoolAccounts = { poolId: pool.poolId, mint, decimals: pool.decimals, authority, tokenVault };
    pools.set(pool.poolId, accounts);
    options.log?.debug({ poolId: pool.poolId, mint: pool.mint }, 'ledger pool created');
    return accounts;
  };

  for (const t of market.tokens()) ensureMint(t.mint, t.decimals);
  const unsubscribe = market.onTokenLaunched((t) => ensureMint(t.mint, t.decimals));

  // --- transactions ---------------------------------------------------------------------------

  const refusal = (rpcCode: number, message: string, data?: unknown): LedgerRefusal =>
    data === undefined ? { ok: false, rpcCode, message } : { ok: false, rpcCode, message, data };

  /** Swap terms when the transaction is a swap built by our swap service (pool authority signed). */
  const swapTermsOf = (tx: ParsedTx): { terms: SwapTerms; pool: PoolAccounts; memoIndex: number } | undefined => {
    for (let i = 0; i < tx.instructions.length; i++) {
      const ix = tx.instructions[i];
      if (!ix || tx.keyStrings[ix.programIdIndex] !== MEMO_PROGRAM) continue;
      const terms = decodeSwapMemo(Buffer.from(ix.data).toString('utf8'));
      const pool = terms && pools.get(terms.poolId);
      if (!terms || !pool) continue;
      const signerIndex = tx.keyStrings.indexOf(pool.authority.publicKey.toBase58());
      if (signerIndex >= 0 && signerIndex < tx.numSigners) return { terms, pool, memoIndex: i };
    }
    return undefined;
  };

  /** Checks the model's price against the swap's bound; returns the custom error code, if any. */
  const swapCheck = (swap: NonNullable<ReturnType<typeof swapTermsOf>>): { code: number; log: string } | undefined => {
    const { terms } = swap;
    const quote = market.quote(terms.mint, terms.side, terms.amountIn);
    if (!quote || quote.pool.poolId !== terms.poolId || !quote.pool.tradable) {
      return { code: POOL_CHANGED_ERROR, log: `pool ${terms.poolId} no longer trades ${terms.mint}` };
    }
    if (quote.amountOut < terms.minOut) {
      return { code: SLIPPAGE_EXCEEDED_ERROR, log: `slippage exceeded: the pool gives ${quote.amountOut}, the minimum is ${terms.minOut}` };
    }
    return undefined;
  };

  /** Lamports and token balances of every account of `tx`, in one read per account. */
  const snapshot = (tx: ParsedTx): { lamports: bigint[]; tokens: TokenBalanceJson[] } => {
    const lamports: bigint[] = [];
    const tokens: TokenBalanceJson[] = [];
    tx.keyStrings.forEach((k, accountIndex) => {
      const a = getAccount(k);
      lamports.push(a?.lamports ?? 0n);
      const t = a && readTokenAccount(a.owner, a.data);
      if (!t) return;
      const decimals = mintDecimals.get(t.mint) ?? 0;
      const ui = fromRaw(t.amountRaw, decimals);
      tokens.push({
        accountIndex,
        mint: t.mint,
        owner: t.owner,
        programId: TOKEN_PROGRAM,
        uiTokenAmount: { amount: t.amountRaw.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui },
      });
    });
    return { lamports, tokens };
  };

  /** Executes a transaction in the current slot and records it as landed (or dropped). */
  const land = (tx: ParsedTx, fault: LandingFault | undefined): void => {
    if (!window.isValid(tx.recentBlockhash)) {
      records.set(tx.signature, { state: 'dropped', signature: tx.signature });
      return;
    }
    const budget = readComputeBudget(tx.keys, tx.instructions);
    const fee = transactionFeeLamports(tx.numSigners, budget);
    const pre = snapshot(tx);
    const preBalances = pre.lamports;
    const swap = swapTermsOf(tx);
    let failure = fault?.kind === 'fail' ? { code: INJECTED_FAILURE_ERROR, log: 'injected on-chain failure' } : undefined;
    if (!failure && swap) failure = swapCheck(swap);

    let err: TxErrorJson | null = null;
    let logs: string[];
    let units = 0n;
    if (failure) {
      // Fee-only failure: the runtime charges the fee payer and moves nothing else.
      const payer = preBalances[0] ?? 0n;
      if (payer < fee) {
        records.set(tx.signature, { state: 'dropped', signature: tx.signature });
        return;
      }
      setLamports(tx.feePayer, payer - fee);
      err = { InstructionError: [swap?.memoIndex ?? 0, { Custom: failure.code }] };
      logs = [`Program log: chainpilot-sim: ${failure.log}`, `Program failed: custom program error: 0x${failure.code.toString(16)}`];
    } else {
      if (swap) ensureLiquidity(swap.terms, swap.pool);
      const result = svm.sendTransaction(txDecoder.decode(tx.bytes));
      if ('err' in result) {
        err = txErrorJson(result.err());
        if (isRefusal(err)) {
          options.log?.debug({ signature: tx.signature, err }, 'ledger refused transaction at landing');
          records.set(tx.signature, { state: 'dropped', signature: tx.signature });
          return;
        }
        logs = result.meta().logs();
        units = result.meta().computeUnitsConsumed();
      } else {
        logs = result.logs();
        units = result.computeUnitsConsumed();
      }
    }
    const slot = window.slot();
    const post = snapshot(tx);
    const writable = tx.keyStrings.filter((_, i) => tx.isWritable(i));
    for (const w of writable) lastWrite.set(w, slot);
    records.set(tx.signature, {
      state: 'landed',
      signature: tx.signature,
      slot,
      blockTimeSec: Math.floor(clock.now() / 1000),
      bytes: tx.bytes,
      version: tx.version,
      finalizeAtOnce: fault?.kind === 'finalizeAtOnce',
      cuPriceMicroLamports: budget.cuPriceMicroLamports,
      writableAccounts: writable,
      meta: {
        fee,
        err,
        preBalances,
        postBalances: post.lamports,
        preTokenBalances: pre.tokens,
        postTokenBalances: post.tokens,
        logMessages: logs,
        computeUnitsConsumed: units,
      },
    });
    recentFees.push({ slot, fee: budget.cuPriceMicroLamports, writable });
    if (recentFees.length > 10_000) recentFees.splice(0, recentFees.length - 10_000);
    if (err === null && swap) {
      const { terms } = swap;
      market.applyLandedSwap({
        mint: terms.mint,
        wallet: tx.feePayer,
        side: terms.side,
        solLamports: terms.side === 'buy' ? terms.amountIn : terms.amountOut,
        tokenRaw: terms.side === 'buy' ? terms.amountOut : terms.amountIn,
        signature: tx.signature,
        slot,
        at: clock.now(),
      });
    }
  };

  /** The vaults are a liquidity buffer: the model's reserves set prices; top up if a swap needs more. */
  const ensureLiquidity = (terms: SwapTerms, pool: PoolAccounts): void => {
    if (terms.side === 'buy') {
      const vault = pool.tokenVault.toBase58();
      const have = tokenAmount(vault);
      if (have < terms.amountOut) mintInto(terms.mint, vault, pool.authority.publicKey, terms.amountOut - have);
    } else {
      const a = pool.authority.publicKey.toBase58();
      const have = svm.getBalance(a as Address) ?? 0n;
      if (have < terms.amountOut + rentSystem) setLamports(a, terms.amountOut + rentSystem);
    }
  };

  const decode = (bytes: Uint8Array): ParsedTx | LedgerRefusal => {
    try {
      return parseTx(bytes);
    } catch (e) {
      return refusal(-32602, `invalid transaction: failed to deserialize: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  const preflightFailure = (err: TxErrorJson, logs: readonly string[], units: bigint): LedgerRefusal =>
    refusal(-32002, `Transaction simulation failed: ${describeTxError(err)}`, { err, logs, accounts: null, unitsConsumed: Number(units) });

  const simulateParsed = (tx: ParsedTx, addresses: readonly string[]): SimulationResult => {
    const swap = swapTermsOf(tx);
    const failure = swap && swapCheck(swap);
    if (failure) {
      return {
        err: { InstructionError: [swap.memoIndex, { Custom: failure.code }] },
        logs: [`Program log: chainpilot-sim: ${failure.log}`],
        unitsConsumed: 0n,
        accounts: addresses.map(() => null),
      };
    }
    const r = svm.simulateTransaction(txDecoder.decode(tx.bytes));
    if ('err' in r) {
      return { err: txErrorJson(r.err()), logs: r.meta().logs(), unitsConsumed: r.meta().computeUnitsConsumed(), accounts: addresses.map(() => null) };
    }
    const post = new Map(r.postAccounts().map((a) => [a.address as string, a]));
    return {
      err: null,
      logs: r.meta().logs(),
      unitsConsumed: r.meta().computeUnitsConsumed(),
      accounts: addresses.map((a) => {
        const p = post.get(a);
        if (!p) return getAccount(a) ?? null;
        if (p.lamports === 0n && p.data.length === 0) return null;
        return fromEncoded(p);
      }),
    };
  };

  // --- slots ----------------------------------------------------------------------------------

  let timer: TimerHandle | undefined;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    svm.expireBlockhash();
    window.advance(svm.latestBlockhash());
    const due = pending.get(window.slot());
    if (due) {
      pending.delete(window.slot());
      for (const p of due) land(p.tx, p.fault);
    }
    timer = clock.setTimeout(tick, slotMs);
  };
  timer = clock.setTimeout(tick, slotMs);

  const statusOf = (r: Extract<TxRecord, { state: 'landed' }>): SignatureStatusView => {
    const confirmations = window.slot() - r.slot;
    const finalized = r.finalizeAtOnce || confirmations >= finalizeAfter;
    const confirmationStatus: ConfirmationStatus = finalized ? 'finalized' : confirmations >= confirmAfter ? 'confirmed' : 'processed';
    return { slot: r.slot, confirmations: finalized ? null : confirmations, err: r.meta.err, confirmationStatus };
  };

  return {
    faults,
    slot: () => window.slot(),
    blockHeight: () => window.blockHeight(),
    latestBlockhash: () => window.latest(),
    isBlockhashValid: (h) => window.isValid(h),
    airdrop(address, amount) {
      if (amount <= 0n) {
        throw new ChainpilotError('LEDGER_INVALID_AIRDROP', `airdrop lamports must be > 0, got ${amount}`, { retry: 'not_retryable' });
      }
      let key: string;
      try {
        key = new PublicKey(address).toBase58();
      } catch {
        throw new ChainpilotError('LEDGER_INVALID_AIRDROP', `airdrop address ${address} is not a valid base58 address`, { retry: 'not_retryable' });
      }
      const pre = svm.getBalance(key as Address) ?? 0n;
      setLamports(key, pre + amount);
      const signature = base58.decode(keyRandom.bytes(64));
      records.set(signature, {
        state: 'landed',
        signature,
        slot: window.slot(),
        blockTimeSec: Math.floor(clock.now() / 1000),
        version: 'legacy',
        finalizeAtOnce: false,
        cuPriceMicroLamports: 0n,
        writableAccounts: [key],
        meta: { fee: 0n, err: null, preBalances: [pre], postBalances: [pre + amount], preTokenBalances: [], postTokenBalances: [], logMessages: [], computeUnitsConsumed: 0n },
      });
      return signature;
    },
    account: getAccount,
    balance: (a) => svm.getBalance(a as Address) ?? 0n,
    tokenAccountsByOwner(owner, mint) {
      return svm
        .getProgramAccounts(TOKEN_PROGRAM as Address)
        .map(fromEncoded)
        .filter((a) => {
          const t = readTokenAccount(a.owner, a.data);
          return t !== undefined && t.owner === owner && (mint === undefined || t.mint === mint);
        });
    },
    programAccounts(programId) {
      return svm.getProgramAccounts(programId as Address).map(fromEncoded);
    },
    send(bytes, sendOptions = {}) {
      const tx = decode(bytes);
      if ('ok' in tx) return tx;
      if (!verifySignatures(tx)) return refusal(-32003, 'Transaction signature verification failure');
      const known = records.get(tx.signature);
      if (known) {
        // Identical bytes: never execute twice. A node with preflight answers AlreadyProcessed.
        if (!sendOptions.skipPreflight && known.state === 'landed') {
          return preflightFailure('AlreadyProcessed', [], 0n);
        }
        return { ok: true, signature: tx.signature };
      }
      if (!window.isValid(tx.recentBlockhash)) return preflightFailure('BlockhashNotFound', [], 0n);
      const fee = transactionFeeLamports(tx.numSigners, readComputeBudget(tx.keys, tx.instructions));
      if ((svm.getBalance(tx.feePayer as Address) ?? 0n) < fee) return preflightFailure('InsufficientFundsForFee', [], 0n);
      if (!sendOptions.skipPreflight) {
        const sim = simulateParsed(tx, []);
        if (sim.err !== null) return preflightFailure(sim.err, sim.logs, sim.unitsConsumed);
      }
      const fault = faults.nextLanding();
      if (fault?.kind === 'drop') {
        records.set(tx.signature, { state: 'dropped', signature: tx.signature });
      } else if (fault?.kind === 'delay' || fault?.kind === 'late') {
        const lastValid = window.lastValidOf(tx.recentBlockhash) ?? window.blockHeight();
        const slots = fault.kind === 'delay' ? Math.max(1, fault.slots) : Math.max(1, lastValid - window.blockHeight());
        const dueSlot = window.slot() + slots;
        records.set(tx.signature, { state: 'pending', signature: tx.signature, dueSlot });
        const list = pending.get(dueSlot) ?? [];
        list.push({ tx, fault: undefined });
        pending.set(dueSlot, list);
      } else {
        land(tx, fault);
      }
      options.log?.debug({ signature: tx.signature, fault: fault?.kind }, 'ledger accepted transaction');
      return { ok: true, signature: tx.signature };
    },
    simulate(bytes, simOptions = {}) {
      const tx = decode(bytes);
      if ('ok' in tx) return tx;
      if (simOptions.sigVerify && !verifySignatures(tx)) return refusal(-32003, 'Transaction signature verification failure');
      const addresses = simOptions.addresses ?? [];
      if (!simOptions.replaceRecentBlockhash && !window.isValid(tx.recentBlockhash)) {
        return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n, accounts: addresses.map(() => null) };
      }
      const result = simulateParsed(tx, addresses);
      return simOptions.replaceRecentBlockhash ? { ...result, replacementBlockhash: window.latest() } : result;
    },
    signatureStatus(signature, searchHistory) {
      const r = records.get(signature);
      if (!r || r.state !== 'landed') return null;
      if (!searchHistory && window.slot() - r.slot > statusCacheSlots) return null;
      return statusOf(r);
    },
    transaction(signature, commitment = 'finalized') {
      const r = records.get(signature);
      if (!r || r.state !== 'landed' || !r.bytes) return undefined;
      if (!commitmentReached(statusOf(r).confirmationStatus, commitment)) return undefined;
      return { slot: r.slot, blockTimeSec: r.blockTimeSec, bytes: r.bytes, version: r.version, meta: r.meta };
    },
    recentPrioritizationFees(accounts) {
      const bySlot = new Map<number, bigint>();
      const from = window.slot() - 150;
      for (const f of recentFees) {
        if (f.slot < from) continue;
        if (accounts && accounts.length > 0 && !f.writable.some((w) => accounts.includes(w))) continue;
        const cur = bySlot.get(f.slot);
        bySlot.set(f.slot, cur === undefined || f.fee < cur ? f.fee : cur);
      }
      return [...bySlot].map(([slot, fee]) => ({ slot, prioritizationFee: Number(fee) }));
    },
    poolAccounts,
    rentExemptLamports: (len) => svm.minimumBalanceForRentExemption(BigInt(len)),
    decimalsOf: (mint) => mintDecimals.get(mint) ?? 0,
    lastWriteSlot: (a) => lastWrite.get(a),
    stop() {
      stopped = true;
      if (timer) clock.clearTimeout(timer);
      unsubscribe();
    },
  };
}

/** LiteSVM hands out plain Uint8Arrays typed read-only by kit; the ledger never mutates them. */
function fromEncoded(a: EncodedAccount): LedgerAccount {
  return { address: a.address, lamports: a.lamports, owner: a.programAddress, data: a.data as Uint8Array, executable: a.executable };
}

/** A short human description of a transaction error, like the validator's. */
export function describeTxError(err: TxErrorJson): string {
  if (typeof err === 'string') return err;
  return JSON.stringify(err);
}
