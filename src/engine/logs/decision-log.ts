/**
 * The decision log: one JSON line per decision (intent, denial) and outcome (fill, rejection).
 * Built only from the injected clock and seeded ids, so two runs with one seed and one input write
 * byte-identical logs. bigint values are written as decimal strings.
 */

export type DecisionEntry =
  | {
      readonly kind: 'intent';
      readonly at: number;
      readonly intentId: string;
      readonly strategyId: string;
      readonly side: 'buy' | 'sell';
      readonly mint: string;
      readonly amountIn: string;
      readonly referencePrice: string | null;
      readonly reason: string;
    }
  | {
      readonly kind: 'denied';
      readonly at: number;
      readonly strategyId: string;
      readonly side: 'buy' | 'sell';
      readonly mint: string;
      readonly amountIn: string;
      readonly code: string;
      readonly reason: string;
    }
  | {
      readonly kind: 'fill';
      readonly at: number;
      readonly intentId: string;
      readonly strategyId: string;
      readonly side: 'buy' | 'sell';
      readonly mint: string;
      readonly solAmount: string;
      readonly tokenAmount: string;
      readonly feeLamports: string;
      readonly price: string;
      /** Rent of accounts the swap created (part of solAmount); absent when none. */
      readonly rentLamports?: string;
      /** Rent that came back from accounts the swap closed (not part of solAmount); absent when none. */
      readonly rentReturnedLamports?: string;
    }
  | {
      readonly kind: 'unfilled';
      readonly at: number;
      readonly intentId: string;
      readonly strategyId: string;
      readonly outcome: 'rejected' | 'failed' | 'expired';
      readonly code: string;
      readonly reason: string;
      readonly feeLamports: string;
    }
  | ManualDecision;

/** The journal entry of a manual action (written before the action runs). */
/** An operator's action (API, CLI, chat, dashboard): who, why and what; the intent or denial it led to follows. */
export interface ManualDecision {
  readonly kind: 'manual';
  readonly at: number;
  readonly action: 'close' | 'enter' | 'cancel';
  readonly by: string;
  readonly why: string;
  /** What the action names: the position (`mint`, `strategyId` when given) or the intent to cancel. */
  readonly target: { readonly mint?: string; readonly strategyId?: string; readonly intentId?: string };
  /** `close`: the share in basis points; `enter`: lamports to spend; `cancel`: null. */
  readonly amount: string | null;
}

export type DecisionSink = (entry: DecisionEntry) => void;

/** One JSONL line for `entry` (keys in a fixed order). */
export function formatDecision(entry: DecisionEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/** A sink that keeps lines in memory (tests, summaries). */
export function memoryDecisionLog(): { sink: DecisionSink; lines: string[] } {
  const lines: string[] = [];
  return { sink: (e) => lines.push(formatDecision(e)), lines };
}
