/**
 * The simulator's ledger: a LiteSVM runtime with real SPL mints, pool vaults and wallets, plus what
 * LiteSVM does not model: slots and block height on the simulator clock, a window of recent
 * blockhashes, commitment progression, a signature store that never forgets, fee-only failures,
 * slippage checked against the market model at landing, and injected faults.
 */
import { PublicKey } from '@solana/web3.js';
import { base58Text } from '../../core/base58.js';
import { ChainpilotError, type TimerHandle } from '../../core/index.js';
import { createBlockWindow } from './block-window.js';
import { createFaultPlan, type LandingFault } from './faults.js';
import { readComputeBudget, transactionFeeLamports } from './fees.js';
import { validateLedgerKnobs } from './ledger-options.js';
import { createLedgerState } from './ledger-state.js';
import { createNativeSvm, ledgerAccount } from './native-svm.js';
import { keyText } from '../../client/key-text.js';
import {
  INJECTED_FAILURE_ERROR,
  POOL_CHANGED_ERROR,
  SLIPPAGE_EXCEEDED_ERROR,
  type Ledger,
  type LedgerOptions,
  type LedgerRefusal,
  type PoolAccounts,
  type SignatureStatusView,
  type SimulationResult,
} from './ledger-types.js';
import { parseTx, verifySignatures, type ParsedTx } from './parsed-tx.js';
import { readTokenAccount, TOKEN_PROGRAM_ID } from './spl-accounts.js';
import { decodeSwapMemo, MEMO_PROGRAM, type SwapTerms } from './swap-memo.js';
import { describeTxError, isRefusal, txErrorJson, type TxErrorJson } from './tx-error.js';
import { commitmentReached, type ConfirmationStatus, type TxRecord } from './tx-record.js';

const TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58();

/** Creates a ledger and starts producing slots on `options.clock`. */
export function createLedger(options: LedgerOptions): Ledger {
  const { market, clock, random, log: _log, ...knobs } = options;
  validateLedgerKnobs(knobs);
  const slotMs = options.slotMs ?? 400;
  const confirmAfter = options.confirmAfterSlots ?? 1;
  const finalizeAfter = options.finalizeAfterSlots ?? 32;
  const statusCacheSlots = options.statusCacheSlots ?? 300;
  const faults = createFaultPlan(random.fork('ledger-faults'), options.faults);
  const keyRandom = random.fork('ledger-keys');

  const svm = createNativeSvm();
  const window = createBlockWindow(svm.latestBlockhash(), { validBlocks: options.validBlocks ?? 150, firstSlot: 1 });
  const state = createLedgerState(svm, () => window.slot(), keyRandom, options.log);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a factory's methods are closures: no `this`
  const { getAccount, setLamports, snapshot, ensureLiquidity, settleAtLanding } = state;
  const records = new Map<string, TxRecord>();
  const pending = new Map<number, ParsedTxWithFault[]>();
  const recentFees: { slot: number; fee: bigint; writable: readonly string[] }[] = [];

  interface ParsedTxWithFault {
    readonly tx: ParsedTx;
    readonly fault: LandingFault | undefined;
  }

  for (const t of market.tokens()) state.ensureMint(t.mint, t.decimals);
  const unsubscribe = market.onTokenLaunched((t) => state.ensureMint(t.mint, t.decimals));

  // --- transactions ---------------------------------------------------------------------------

  const refusal = (rpcCode: number, message: string, data?: unknown): LedgerRefusal =>
    data === undefined ? { ok: false, rpcCode, message } : { ok: false, rpcCode, message, data };

  /** Swap terms when the transaction is a swap built by our swap service (pool authority signed). */
  const swapTermsOf = (tx: ParsedTx): { terms: SwapTerms; pool: PoolAccounts; memoIndex: number } | undefined => {
    for (let i = 0; i < tx.instructions.length; i++) {
      const ix = tx.instructions[i];
      if (!ix || tx.keyStrings[ix.programIdIndex] !== MEMO_PROGRAM) continue;
      const terms = decodeSwapMemo(Buffer.from(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength).toString('utf8'));
      const pool = terms && state.pool(terms.poolId);
      if (!terms || !pool) continue;
      const signerIndex = tx.keyStrings.indexOf(pool.authorityAddress);
      if (signerIndex >= 0 && signerIndex < tx.numSigners) return { terms, pool, memoIndex: i };
    }
    return undefined;
  };

  /** The model's output for the swap now (the pool as it stands), when the pool still trades the token. */
  const outputNow = (terms: SwapTerms): bigint | undefined => {
    const quote = market.quote(terms.mint, terms.side, terms.amountIn);
    return quote && quote.pool.poolId === terms.poolId && quote.pool.tradable ? quote.amountOut : undefined;
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

  /** Executes a transaction in the current slot and records it as landed (or dropped). */
  const land = (tx: ParsedTx, fault: LandingFault | undefined): void => {
    if (!window.isValid(tx.recentBlockhash)) {
      records.set(tx.signature, { state: 'dropped', signature: tx.signature });
      return;
    }
    const budget = readComputeBudget(tx.keyStrings, tx.instructions);
    const fee = transactionFeeLamports(tx.numSigners, budget);
    const pre = snapshot(tx);
    const preBalances = pre.lamports;
    const swap = swapTermsOf(tx);
    let failure = fault?.kind === 'fail' ? { code: INJECTED_FAILURE_ERROR, log: 'injected on-chain failure' } : undefined;
    if (!failure && swap) failure = swapCheck(swap);
    // A swap pays what the pool gives when it lands (at least minOut, checked above), as a swap program does.
    const out = !failure && swap ? (outputNow(swap.terms) ?? swap.terms.amountOut) : undefined;

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
      const result = svm.send(tx.bytes, tx.version);
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
        if (swap && out !== undefined) settleAtLanding(swap.terms, swap.pool, tx.feePayer, out);
      }
    }
    const slot = window.slot();
    const post = snapshot(tx, pre);
    const writable = tx.keyStrings.filter((_, i) => tx.isWritable(i));
    for (const w of writable) state.markWritten(w, slot);
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
        solLamports: terms.side === 'buy' ? terms.amountIn : (out ?? terms.amountOut),
        tokenRaw: terms.side === 'buy' ? (out ?? terms.amountOut) : terms.amountIn,
        signature: tx.signature,
        slot,
        at: clock.now(),
      });
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
    if (swap) ensureLiquidity(swap.terms, swap.pool); // the vault must look as it will at landing
    const r = svm.simulate(tx.bytes, tx.version);
    if ('err' in r) {
      return { err: txErrorJson(r.err()), logs: r.meta().logs(), unitsConsumed: r.meta().computeUnitsConsumed(), accounts: addresses.map(() => null) };
    }
    const post = new Map(r.postAccounts().map((a) => [keyText(a.address), a.account()]));
    return {
      err: null,
      logs: r.meta().logs(),
      unitsConsumed: r.meta().computeUnitsConsumed(),
      accounts: addresses.map((a) => {
        const p = post.get(a);
        if (!p) return getAccount(a) ?? null;
        if (p.lamports() === 0n && p.data().length === 0) return null;
        return ledgerAccount(a, p);
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
      const pre = svm.balance(key) ?? 0n;
      setLamports(key, pre + amount);
      const signature = base58Text(keyRandom.bytes(64));
      records.set(signature, {
        state: 'landed',
        signature,
        slot: window.slot(),
        blockTimeSec: Math.floor(clock.now() / 1000),
        version: 'legacy',
        finalizeAtOnce: false,
        cuPriceMicroLamports: 0n,
        writableAccounts: [key],
        meta: {
          fee: 0n,
          err: null,
          preBalances: [pre],
          postBalances: [pre + amount],
          preTokenBalances: [],
          postTokenBalances: [],
          logMessages: [],
          computeUnitsConsumed: 0n,
        },
      });
      return signature;
    },
    account: getAccount,
    balance: (a) => svm.balance(a) ?? 0n,
    tokenAccountsByOwner(owner, mint) {
      return svm.programAccounts(TOKEN_PROGRAM).filter((a) => {
        const t = readTokenAccount(a.owner, a.data);
        return t !== undefined && t.owner === owner && (mint === undefined || t.mint === mint);
      });
    },
    programAccounts(programId) {
      return svm.programAccounts(programId);
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
      const fee = transactionFeeLamports(tx.numSigners, readComputeBudget(tx.keyStrings, tx.instructions));
      if ((svm.balance(tx.feePayer, tx.keys[0]) ?? 0n) < fee) return preflightFailure('InsufficientFundsForFee', [], 0n);
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
    poolAccounts: (pool) => state.poolAccounts(pool),
    rentExemptLamports: (len) => svm.rentExemptLamports(len),
    decimalsOf: (mint) => state.decimalsOf(mint),
    lastWriteSlot: (a) => state.lastWriteSlot(a),
    stop() {
      stopped = true;
      if (timer) clock.clearTimeout(timer);
      unsubscribe();
    },
  };
}
