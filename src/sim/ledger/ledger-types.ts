/**
 * The types of the simulator's ledger: its options, the views it serves to JSON-RPC, and the
 * `Ledger` interface the RPC and swap services use.
 */
import type { Clock, Logger, Random } from '../../core/index.js';
import type { Keypair, PublicKey } from '@solana/web3.js';
import type { SimMarketPort, SimPool } from '../market-port.js';
import type { IssuedBlockhash } from './block-window.js';
import type { FaultPlan, FaultRates } from './faults.js';
import type { TxErrorJson } from './tx-error.js';
import type { LandingSettings } from '../sim-settings.js';
import type { ConfirmationStatus, LandedMeta } from './tx-record.js';

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
  /**
   * The landing model (src/sim/ledger/landing-model.ts) with these settings (`{}`: the defaults of
   * `landingSettingsSchema` in src/sim/sim-settings.ts). Absent: every accepted transaction without
   * a landing fault lands at once, in the slot it was sent in. The runtime's simulators (a live
   * rehearsal, `chainpilot sim`) turn it on.
   */
  readonly landing?: Partial<LandingSettings>;
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
  /** `authority.publicKey` and `tokenVault` in base58, computed once. */
  readonly authorityAddress: string;
  readonly tokenVaultAddress: string;
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
  /**
   * A frozen address lookup table holding `addresses` (base58), created on first use: the same
   * list gives the same table. Its account is served over JSON-RPC like any other.
   */
  lookupTable(addresses: readonly string[]): string;
  /** Stops producing slots. */
  stop(): void;
}
