/**
 * The intent journal: the only source of truth for what the live executor built, signed and sent.
 * Every state change is one atomic write. The SQLite journal is the embedded default; a Redis
 * journal (scale-out) implements the same interface.
 */
import type { Fill, OrderIntent } from '../../engine/orders/execution-port.js';
import type { Lamports } from '../../core/index.js';

/**
 * `NEW → SIGNED → SENT → LANDED | FAILED_ON_CHAIN | EXPIRED`, plus `DENIED`. The live executor
 * writes nothing between the decision (create) and the signed attempt: `NEW → SIGNED` and, for a
 * rebuild after the chain proved the old transaction dead, `EXPIRED → SIGNED` are one write each.
 * `BUILT` (built and inspected, not signed) is still read and accepted in journals written before
 * that; `BUILT → BUILT` and `EXPIRED → BUILT` are its rebuilds.
 */
export type IntentState = 'NEW' | 'BUILT' | 'SIGNED' | 'SENT' | 'LANDED' | 'FAILED_ON_CHAIN' | 'EXPIRED' | 'DENIED';

/** Allowed transitions (checked by every journal implementation). */
export const TRANSITIONS: Readonly<Record<IntentState, readonly IntentState[]>> = {
  NEW: ['BUILT', 'SIGNED', 'DENIED'],
  BUILT: ['BUILT', 'SIGNED', 'DENIED'],
  SIGNED: ['SENT', 'LANDED', 'FAILED_ON_CHAIN', 'EXPIRED'],
  SENT: ['LANDED', 'FAILED_ON_CHAIN', 'EXPIRED'],
  EXPIRED: ['BUILT', 'SIGNED', 'DENIED', 'EXPIRED'],
  LANDED: [],
  FAILED_ON_CHAIN: [],
  DENIED: [],
};

/** One signed transaction of an intent. Written before its first send. */
export interface AttemptRecord {
  /** 0-based attempt number within the intent. */
  readonly n: number;
  readonly signature: string;
  /** Exact signed bytes, base64: re-broadcasts send these, never a rebuilt transaction. */
  readonly txBase64: string;
  readonly blockhash: string;
  /** Block height after which this transaction can no longer land (conservative upper bound). */
  readonly expiryBlockHeight: number;
  readonly slippageBps: number;
  readonly state: 'SIGNED' | 'SENT' | 'LANDED' | 'FAILED_ON_CHAIN' | 'EXPIRED';
}

export interface IntentRecord {
  readonly intent: OrderIntent;
  readonly state: IntentState;
  /** True once no further work will happen (terminal state, including EXPIRED with no retry left). */
  readonly done: boolean;
  /** Lamports this intent may take out of the wallet (counted against the daily cap). */
  readonly spendLamports: bigint;
  /** UTC day (YYYY-MM-DD) the spend counts against. */
  readonly day: string;
  readonly attempts: readonly AttemptRecord[];
  readonly code?: string;
  readonly reason?: string;
  readonly fill?: Fill;
  /** Fee paid by a transaction that failed on chain. */
  readonly feeLamports?: Lamports;
  /**
   * Slot the deciding transaction landed in (LANDED or FAILED_ON_CHAIN), as the chain's
   * `getSignatureStatuses` reported it; absent in rows written before it was recorded. Latency
   * fits read it (400 ms resolution), not the block time (whole seconds).
   */
  readonly landedSlot?: number;
  /** True once the terminal outcome was handed to the sink. */
  readonly reported: boolean;
  readonly updatedAt: number;
}

export type CreateResult =
  | { readonly kind: 'created'; readonly record: IntentRecord }
  | { readonly kind: 'exists'; readonly record: IntentRecord }
  | { readonly kind: 'over_daily_cap'; readonly spentTodayLamports: bigint };

export interface NewAttempt {
  readonly signature: string;
  readonly txBase64: string;
  readonly blockhash: string;
  readonly expiryBlockHeight: number;
  readonly slippageBps: number;
}

/** How an attempt settled. `landedSlot`: the slot its transaction landed in, from the status read that decided it. */
export type Resolution =
  | { readonly state: 'LANDED'; readonly signature: string; readonly fill: Fill; readonly landedSlot?: number }
  | {
      readonly state: 'FAILED_ON_CHAIN';
      readonly signature: string;
      readonly code: string;
      readonly reason: string;
      readonly feeLamports: Lamports;
      readonly landedSlot?: number;
    }
  | { readonly state: 'EXPIRED'; readonly signature: string; readonly final: boolean };

export interface IntentJournal {
  /**
   * Writes a NEW intent, unless its id exists already. When `dailyCapLamports` is given, the sum of
   * `spendLamports` of every non-denied intent of the same day plus this one must stay within it;
   * check and insert are one atomic step.
   */
  create(
    intent: OrderIntent,
    spend: { readonly spendLamports: bigint; readonly day: string; readonly dailyCapLamports?: bigint },
    at: number,
  ): Promise<CreateResult>;
  get(id: string): Promise<IntentRecord | undefined>;
  /**
   * NEW/EXPIRED → BUILT: a transaction was built and passed inspection (nothing signed yet). The live
   * executor no longer writes it (its recovery is the same as NEW's: build again); kept for
   * journals written by versions that did, and for tools that mark the step.
   */
  markBuilt(id: string, at: number): Promise<void>;
  /**
   * NEW/BUILT/EXPIRED → SIGNED: appends the attempt (signature, bytes, blockhash, expiry) in the
   * same write. The only write between the decision and the first send.
   * Throws JOURNAL_DUPLICATE_SIGNATURE (retryable, nothing written) when the signature is already
   * journaled for any intent.
   */
  recordSigned(id: string, attempt: NewAttempt, at: number): Promise<void>;
  /** SIGNED → SENT after the first send returned (or failed with an unknown outcome). */
  markSent(id: string, signature: string, at: number): Promise<void>;
  /** Settles the current attempt: LANDED (with its fill), FAILED_ON_CHAIN, or EXPIRED (final or not). */
  resolve(id: string, resolution: Resolution, at: number): Promise<void>;
  /** NEW/BUILT/EXPIRED → DENIED (never signed, or no retry allowed), with a stable code and reason. */
  deny(id: string, code: string, reason: string, at: number): Promise<void>;
  /** Marks the terminal outcome as handed to the sink. */
  markReported(id: string, at: number): Promise<void>;
  /** Intents with work left or with an outcome not yet reported, oldest first. */
  unresolved(): Promise<IntentRecord[]>;
  /** Every LANDED intent with its fill, in the order they landed: rebuilds positions after a restart. */
  landed(): Promise<IntentRecord[]>;
  /** Sum of `spendLamports` of non-denied intents of `day`. */
  spentOn(day: string): Promise<bigint>;
  close(): Promise<void>;
}

/** True when the journal allows `from → to`. */
export function canTransition(from: IntentState, to: IntentState): boolean {
  return TRANSITIONS[from].includes(to);
}
