/**
 * One coded error class for the whole project.
 *
 * Every error carries a stable `code` (documented in docs/errors.md and listed in
 * `error-codes.ts`), a retry class, and typed context. Messages name the field and the fix.
 * Secrets never go into a message or context: callers pass redacted values.
 */
import type { ErrorCode } from './error-codes.js';

/**
 * - `retryable`: the same request may be sent again (after backoff).
 * - `not_retryable`: the request or configuration must change first.
 * - `fatal`: an invariant broke; stop and let start-up reconciliation recover.
 * - `unknown_outcome`: a write may or may not have taken effect; resolve by querying state, never by resending.
 */
export type RetryClass = 'retryable' | 'not_retryable' | 'fatal' | 'unknown_outcome';

export type ErrorContext = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface ChainpilotErrorOptions {
  readonly retry: RetryClass;
  readonly context?: ErrorContext;
  readonly cause?: unknown;
}

/**
 * The mark every ChainpilotError carries, in the process-wide symbol registry: one process can hold
 * two copies of this module (a user's strategy imports `chainpilot/strategy` from dist/ while a
 * command runs from its bundle, or an app with two installs), and an error made by either copy is a
 * ChainpilotError to both.
 */
const BRAND: unique symbol = Symbol.for('chainpilot.ChainpilotError') as never;

export class ChainpilotError extends Error {
  readonly code: ErrorCode;
  readonly retry: RetryClass;
  readonly context: ErrorContext;
  declare readonly [BRAND]: true;

  constructor(code: ErrorCode, message: string, options: ChainpilotErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChainpilotError';
    this.code = code;
    this.retry = options.retry;
    this.context = options.context ?? {};
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** `instanceof` by the mark, so an error of another copy of this module counts (see BRAND). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  get retryable(): boolean {
    return this.retry === 'retryable';
  }

  toJSON(): { name: string; code: ErrorCode; message: string; retry: RetryClass; context: ErrorContext } {
    return { name: this.name, code: this.code, message: this.message, retry: this.retry, context: this.context };
  }
}

/** True when `e` is a ChainpilotError, optionally with the given code. */
export function isChainpilotError(e: unknown, code?: ErrorCode): e is ChainpilotError {
  return e instanceof ChainpilotError && (code === undefined || e.code === code);
}

/** A short description of any thrown value, for logs (never includes stack-embedded secrets). */
export function describeError(e: unknown): string {
  if (e instanceof ChainpilotError) return `${e.code}: ${e.message}`;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}
