/**
 * The errors of one HTTP client, built in one place: every message and context value redacted,
 * the endpoint named, and the retry class chosen by what the failure means: a read that failed may
 * be retried, a write whose request may have left the process has an unknown outcome.
 *
 * State: none; the service label and the redactor that knows the client's key.
 */
import { ChainpilotError, type ErrorCode, type Redactor, type RetryClass } from '../../core/index.js';
import type { ErrorBodyInfo } from './error-body.js';
import type { HttpRequest } from './http-client.js';
import { classifyStatus } from './http-status.js';

/** One attempt that failed. */
export interface Attempt {
  readonly error: ChainpilotError;
  /** Server-requested wait, when it sent Retry-After. */
  readonly retryAfterMs?: number;
  /** True when a read may be retried after this failure. */
  readonly retriable: boolean;
}

export interface HttpFailures {
  /** An error of `req` with `message`; `extra` values go to the context (strings redacted). */
  readonly fail: (
    code: ErrorCode,
    message: string,
    retryClass: RetryClass,
    req: HttpRequest,
    extra?: Record<string, string | number | undefined>,
  ) => ChainpilotError;
  /** The caller aborted `req`; a write aborted after it may have left the process has an unknown outcome. */
  readonly aborted: (req: HttpRequest, maybeSent: boolean) => ChainpilotError;
  /** No complete response: the attempt's timeout fired (`timedOut`) or the connection failed with `cause`. */
  readonly transport: (req: HttpRequest, timedOut: boolean, limitMs: number, cause: unknown) => Attempt;
  /** A non-2xx status, with what the error body and Retry-After said. */
  readonly status: (req: HttpRequest, status: number, info: ErrorBodyInfo, retryAfterMs: number | undefined) => Attempt;
}

export function createHttpFailures(service: string, redactor: Redactor): HttpFailures {
  const fail: HttpFailures['fail'] = (code, message, retryClass, req, extra = {}) => {
    const context: Record<string, string | number> = { service, endpoint: `${req.method} ${redactor.redact(req.path)}` };
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) context[k] = typeof v === 'string' ? redactor.redact(v) : v;
    return new ChainpilotError(code, redactor.redact(`${service} ${req.method} ${req.path}: ${message}`), { retry: retryClass, context });
  };

  return {
    fail,
    aborted: (req, maybeSent) =>
      new ChainpilotError('CORE_ABORTED', redactor.redact(`${service} ${req.method} ${req.path} was aborted by the caller`), {
        retry: maybeSent && req.kind === 'write' ? 'unknown_outcome' : 'not_retryable',
        context: { service, endpoint: redactor.redact(`${req.method} ${req.path}`) },
      }),
    transport(req, timedOut, limitMs, e) {
      const isWrite = req.kind === 'write';
      if (timedOut) {
        return {
          error: fail(
            'HTTP_TIMEOUT',
            `no complete response within ${limitMs} ms; raise timeoutMs or retry later`,
            isWrite ? 'unknown_outcome' : 'retryable',
            req,
            { timeoutMs: limitMs },
          ),
          retriable: !isWrite,
        };
      }
      const cause = errorCodeOf(e);
      return {
        error: fail('HTTP_NETWORK', `connection failed (${cause}); check the base URL and network`, isWrite ? 'unknown_outcome' : 'retryable', req, {
          cause,
        }),
        retriable: !isWrite,
      };
    },
    status(req, status, info, retryAfterMs) {
      const said = info.apiMessage !== undefined || info.apiCode !== undefined ? ` (${[info.apiCode, info.apiMessage].filter(Boolean).join(': ')})` : '';
      const c = classifyStatus(status, req.kind === 'write');
      const extra = { status, apiCode: info.apiCode, apiMessage: info.apiMessage, bodyCode: info.bodyCode, retryAfterMs };
      return {
        error: fail(c.code, `HTTP ${status}${said}; ${c.advice}`, c.retry, req, extra),
        retriable: c.retriable,
        ...(retryAfterMs !== undefined && c.retriable ? { retryAfterMs } : {}),
      };
    },
  };
}

function errorCodeOf(e: unknown): string {
  if (typeof e === 'object' && e !== null) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (e as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'unknown';
}
