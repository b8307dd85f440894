/**
 * One budget for the response bodies being read at once, across every request of every client
 * that shares it (by default the whole process): `maxResponseBytes` bounds one body, this bounds
 * their sum, so ten concurrent look-ups answered with 60 MB each cannot hold 600 MB. Each attempt
 * leases bytes as they arrive (a declared Content-Length up front) and gives them back once its
 * body is parsed or dropped; a body that would take the budget past its limit is dropped with the
 * socket and its request fails (HTTP_BODY_BUDGET).
 *
 * State: the bytes held now, the most held at once, and the count of refused bodies.
 */
import { ChainpilotError } from '../../core/errors.js';
import { WIRE_LIMITS } from '../wire-limits.js';

/** One attempt's share of the budget. */
export interface BodyLease {
  /** Holds `totalBytes` in all for this attempt (takes only what it does not hold yet); false, taking nothing, past the budget. */
  cover(totalBytes: number): boolean;
  /** Bytes this lease holds. */
  readonly heldBytes: number;
  /** Gives every held byte back (idempotent). */
  release(): void;
}

export interface BodyBudget {
  readonly limitBytes: number;
  /** A new, empty lease for one attempt's body. */
  lease(): BodyLease;
  /** Bytes held by every lease now. */
  inUseBytes(): number;
  /** The most bytes held at once since the budget was made. */
  peakBytes(): number;
  /** Bodies refused because the budget was spent. */
  refused(): number;
}

/** A budget of `limitBytes` (a positive integer) for bodies read at once. */
export function createBodyBudget(limitBytes: number): BodyBudget {
  if (!Number.isSafeInteger(limitBytes) || limitBytes <= 0) {
    throw new ChainpilotError('HTTP_INVALID_OPTIONS', `bodyBudget: limitBytes must be a positive integer number of bytes, got ${limitBytes}`, {
      retry: 'not_retryable',
      context: { field: 'limitBytes' },
    });
  }
  let inUse = 0;
  let peak = 0;
  let refusals = 0;
  return {
    limitBytes,
    lease() {
      let held = 0;
      return {
        cover(totalBytes) {
          const more = totalBytes - held;
          if (more <= 0) return true;
          if (inUse + more > limitBytes) {
            refusals++;
            return false;
          }
          inUse += more;
          held += more;
          if (inUse > peak) peak = inUse;
          return true;
        },
        get heldBytes() {
          return held;
        },
        release() {
          inUse -= held;
          held = 0;
        },
      };
    },
    inUseBytes: () => inUse,
    peakBytes: () => peak,
    refused: () => refusals,
  };
}

let processBudget: BodyBudget | undefined;

/** The budget every HTTP client shares unless given its own (`WIRE_LIMITS.maxInFlightResponseBytes`). */
export function processBodyBudget(): BodyBudget {
  processBudget ??= createBodyBudget(WIRE_LIMITS.maxInFlightResponseBytes);
  return processBudget;
}
