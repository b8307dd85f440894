/**
 * The simulator's ledger: a LiteSVM runtime with real SPL mints, pool vaults and wallets, plus what
 * LiteSVM does not model: slots and block height on the simulator clock, a window of recent
 * blockhashes, commitment progression, a signature store that never forgets, fee-only failures,
 * slippage checked against the market model at landing, and injected faults.
 *
 * This file wires the ledger's parts and serves the `Ledger` interface:
 * - accounts (ledger-accounts.ts): LiteSVM's accounts, mints, pools, liquidity, snapshots;
 * - the transaction pipeline: tx-pipeline.ts (send and simulate: decode, verify, refuse, preflight),
 *   landing-schedule.ts (slots, and when an accepted transaction lands), tx-execution.ts (landing
 *   one transaction: fee-only failures, execution, settlement), swap-check.ts (swaps against the
 *   market model), signature-store.ts (every signature, statuses, prioritization fees);
 * - fault injection (faults.ts): the seeded and queued faults the pipeline draws from.
 */
import { PublicKey } from '@solana/web3.js';
import { base58Text } from '../../core/base58.js';
import { ChainpilotError } from '../../core/index.js';
import { createBlockWindow } from './block-window.js';
import { createFaultPlan } from './faults.js';
import { createLandingSchedule } from './landing-schedule.js';
import { createLandingModel } from './landing-model.js';
import { parseLandingSettings } from '../sim-settings.js';
import { validateLedgerKnobs } from './ledger-options.js';
import { createLedgerAccounts } from './ledger-accounts.js';
import type { Ledger, LedgerOptions } from './ledger-types.js';
import { createNativeSvm } from './native-svm.js';
import { createSignatureStore } from './signature-store.js';
import { readTokenAccount, TOKEN_PROGRAM_ID } from './spl-accounts.js';
import { createSwapCheck } from './swap-check.js';
import { createTxExecution } from './tx-execution.js';
import { createTxPipeline } from './tx-pipeline.js';

const TOKEN_PROGRAM = TOKEN_PROGRAM_ID.toBase58();

/** Creates a ledger and starts producing slots on `options.clock`. */
export function createLedger(options: LedgerOptions): Ledger {
  const { market, clock, random, log: _log, ...knobs } = options;
  validateLedgerKnobs(knobs);
  const faults = createFaultPlan(random.fork('ledger-faults'), options.faults);
  const keyRandom = random.fork('ledger-keys');

  const svm = createNativeSvm();
  const window = createBlockWindow(svm.latestBlockhash(), { validBlocks: options.validBlocks ?? 150, firstSlot: 1 });
  const accounts = createLedgerAccounts(svm, () => window.slot(), keyRandom, options.log);
  const store = createSignatureStore(window, {
    confirmAfterSlots: options.confirmAfterSlots ?? 1,
    finalizeAfterSlots: options.finalizeAfterSlots ?? 32,
    statusCacheSlots: options.statusCacheSlots ?? 300,
  });
  const swaps = createSwapCheck(market, accounts);
  const execution = createTxExecution({ svm, accounts, window, store, swaps, market, clock, ...(options.log ? { log: options.log } : {}) });
  const inclusion =
    options.landing === undefined
      ? undefined
      : {
          model: createLandingModel(parseLandingSettings(options.landing), random.fork('ledger-landing')),
          swapsPerSlot: () => market.swapsPerSlot?.() ?? 0,
        };
  const schedule = createLandingSchedule({ clock, slotMs: options.slotMs ?? 400, svm, window, store, execution, ...(inclusion ? { inclusion } : {}) });
  const pipeline = createTxPipeline({
    svm,
    tables: (a) => accounts.tableAddresses(a),
    window,
    store,
    faults,
    execution,
    schedule,
    ...(options.log ? { log: options.log } : {}),
  });

  for (const t of market.tokens()) accounts.ensureMint(t.mint, t.decimals);
  const unsubscribe = market.onTokenLaunched((t) => accounts.ensureMint(t.mint, t.decimals));
  schedule.start();

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
      accounts.setLamports(key, pre + amount);
      const signature = base58Text(keyRandom.bytes(64));
      // Credited directly, as a local validator's faucet would: a status, but no transaction to read.
      store.landed({
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
    account: (a) => accounts.getAccount(a),
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
    send: (bytes, sendOptions) => pipeline.send(bytes, sendOptions),
    simulate: (bytes, simOptions) => pipeline.simulate(bytes, simOptions),
    signatureStatus: (signature, searchHistory) => store.status(signature, searchHistory),
    transaction: (signature, commitment = 'finalized') => store.transaction(signature, commitment),
    recentPrioritizationFees: (writing) => store.recentPrioritizationFees(writing),
    poolAccounts: (pool) => accounts.poolAccounts(pool),
    lookupTable: (addresses) => accounts.lookupTable(addresses),
    rentExemptLamports: (len) => svm.rentExemptLamports(len),
    decimalsOf: (mint) => accounts.decimalsOf(mint),
    lastWriteSlot: (a) => accounts.lastWriteSlot(a),
    stop() {
      schedule.stop();
      unsubscribe();
    },
  };
}
