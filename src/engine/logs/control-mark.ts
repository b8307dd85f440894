/**
 * A change of what a run admits, as its recording keeps it (the recording port, research's
 * recorder and the backtest all speak it; the engine owns it like the decision log's lines).
 */
import type { ErrorCode } from '../../core/index.js';

/** What a run refuses a side of new intents with (the code and reason its admission gives). */
export interface AdmissionRefusal {
  readonly code: ErrorCode;
  readonly reason: string;
}

/**
 * A change of what the run admits, recorded so that a backtest admits exactly the same: `entries`
 * when the run's own admission of buys or sells changed (an operator's pause or resume, a pause for
 * the feed, a halt; `null` for a side it admits), `kill` when the kill switch went on or off (its
 * reason while on). The stop is its own mark (`mark('stop')`).
 */
export type ControlMark =
  | { readonly kind: 'entries'; readonly buy: AdmissionRefusal | null; readonly sell: AdmissionRefusal | null }
  | { readonly kind: 'kill'; readonly on: boolean; readonly reason: string | null };
