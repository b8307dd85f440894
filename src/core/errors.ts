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

export class ChainpilotError extends Error {
  readonly code: ErrorCode;
  readonly retry: RetryClass;
  readonly context: ErrorContext;

  constructor(code: ErrorCode, message: string, options: ChainpilotErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChainpilotError';
    this.code = code;
    this.retry = options.retry;
    this.context = options.context ?? {};
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
