/**
 * The port between the engine and every executor (paper, live, queued). The engine hands over
 * intents that passed the risk gate; outcomes come back as reports through one sink. Executors
 * implement this interface; the engine never imports an executor.
 */
import type { Bps, Lamports, RawAmount, UnixMs } from '../../core/index.js';

export type IntentSide = 'buy' | 'sell';

/** What every intent carries, whichever side it is. */
interface IntentCommon {
  readonly id: string;
  readonly strategyId: string;
  /** Token mint traded against SOL. */
  readonly mint: string;
  /** Token decimals, to convert raw amounts. */
  readonly decimals: number;
  /** Maximum slippage accepted against the reference price. */
  readonly slippageBps: Bps;
  /** Priority fee budget for the whole transaction, in lamports (an executor may use less). */
  readonly priorityFeeLamports: Lamports;
  /** SOL per whole token observed when the decision was made (exact decimal string), if known. */
  readonly referencePrice: string | undefined;
  readonly createdAt: UnixMs;
  /** Why the strategy decided this (free text for the decision log, e.g. "take-profit 2x"). */
  readonly reason: string;
}

/** A buy: spend `spendLamports` of SOL on the token. */
export interface BuyIntent extends IntentCommon {
  readonly side: 'buy';
  /** SOL to spend, excluding network and priority fees. */
  readonly spendLamports: Lamports;
}

/** A sell: sell `sellRaw` raw units of the token for SOL. */
export interface SellIntent extends IntentCommon {
  readonly side: 'sell';
  /** Raw token units to sell. */
  readonly sellRaw: RawAmount;
}

/**
 * A decision to trade, as the risk gate passed it. Immutable. Its `id` is the idempotency key
 * everywhere: the journal's primary key and the queue's job id. The side says which amount it
 * holds: a buy spends lamports (`spendLamports`), a sell sells raw tokens (`sellRaw`).
 */
export type OrderIntent = BuyIntent | SellIntent;

/**
 * The intent's input amount as a bare integer, for formats that keep one `amountIn` field (the
 * decision log, the journal and job encoding, the control API): lamports for a buy, raw for a sell.
 */
export function amountInOf(intent: Pick<BuyIntent, 'side' | 'spendLamports'> | Pick<SellIntent, 'side' | 'sellRaw'>): bigint {
  return intent.side === 'buy' ? intent.spendLamports : intent.sellRaw;
}

/** What actually happened in a landed (or paper-filled) trade. Exact amounts only. */
export interface Fill {
  readonly intentId: string;
  readonly side: IntentSide;
  readonly mint: string;
  readonly decimals: number;
  /** SOL spent (buy) or received (sell), excluding network and priority fees. */
  readonly solAmount: Lamports;
  /** Tokens received (buy) or sold (sell). */
  readonly tokenAmount: RawAmount;
  /** Network base fee plus priority fee actually paid. */
  readonly feeLamports: Lamports;
  /** SOL per whole token of this fill (exact decimal string). */
  readonly price: string;
  readonly filledAt: UnixMs;
  /** Transaction signature (live), absent for paper fills. */
  readonly signature?: string;
  /** Pool the trade executed in, when known. */
  readonly pool?: string;
  /**
   * Rent paid for accounts the swap created for us (a buy's new token account), when any. It is
   * part of `solAmount` (SOL that left the wallet for the trade), so `price` includes it too; the
   * drift report compares prices without it.
   */
  readonly rentLamports?: Lamports;
  /**
   * Rent that came back to the wallet from token accounts of ours the swap closed, when any. It is
   * NOT part of `solAmount` (never trading proceeds, never in PnL); the portfolio adds it to cash,
   * which follows the wallet.
   */
  readonly rentReturnedLamports?: Lamports;
}

export type ExecutionReport =
  /** The intent is durably accepted (journaled or queued). */
  | { readonly type: 'accepted'; readonly intentId: string; readonly at: UnixMs }
  /** The trade landed (or paper-filled). Delivered exactly once per signature. */
  | {
      readonly type: 'filled';
      readonly intentId: string;
      readonly at: UnixMs;
      readonly fill: Fill;
      /**
       * The intent's strategy, when the executor knows it (live executors read it from the journal):
       * lets the engine reconcile a fill of an intent it does not hold instead of dropping it.
       */
      readonly strategyId?: string;
    }
  /** The executor refused before anything was sent (inspection failed, spend cap, bad quote). */
  | { readonly type: 'rejected'; readonly intentId: string; readonly at: UnixMs; readonly code: string; readonly reason: string }
  /** The transaction landed and failed on chain; the fee was still paid. */
  | { readonly type: 'failed'; readonly intentId: string; readonly at: UnixMs; readonly code: string; readonly reason: string; readonly feeLamports: Lamports }
  /** The transaction's blockhash expired and the chain does not know it: nothing happened. */
  | { readonly type: 'expired'; readonly intentId: string; readonly at: UnixMs };

export type ExecutionSink = (report: ExecutionReport) => void;

export interface Executor {
  /**
   * Starts the executor. Resolves only after every unresolved intent left by a previous run has
   * been reconciled with the venue and its outcome reported to `sink`; no intent is accepted before.
   */
  start(sink: ExecutionSink): Promise<void>;
  /**
   * Hands over an intent. Resolves once it is durably accepted; outcomes arrive at the sink. A
   * rejection whose ChainpilotError retry class is `unknown_outcome` means the executor may hold
   * the intent anyway (a queue job stored whose reply was lost): the engine keeps it in flight
   * until a report settles it; any other rejection means it was not accepted.
   */
  submit(intent: OrderIntent): Promise<void>;
  /** Stops accepting intents, lets in-flight work settle (until `signal` aborts) and releases resources. */
  stop(signal?: AbortSignal): Promise<void>;
  /**
   * Cancels an intent that has not left the process (paper: still in its latency); reports it
   * `rejected` with ENGINE_INTENT_CANCELLED and answers true. False when the intent is unknown,
   * resolved or already sent. Absent: the executor cannot cancel.
   */
  cancel?(intentId: string, reason: string): boolean;
  /**
   * An operator placed this intent (a manual close or forced entry, just submitted): an executor
   * that holds such intents so that they can be cancelled (paper: `paper.manualHold`) starts the
   * hold. Absent or without a hold: nothing changes.
   */
  holdManual?(intentId: string): void;
}
