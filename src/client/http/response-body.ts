/**
 * A response's body, bounded and parsed: read up to `maxResponseBytes` (larger ones are dropped
 * with the socket) and within the shared in-flight budget (body-budget.ts), parsed as JSON once, refused when nested deeper than `maxJsonDepth`, and
 * turned into the parsed 2xx body or the failed attempt (with what the error body and Retry-After
 * said). A 2xx whose body cannot be used fails a write as an unknown outcome: it may have taken
 * effect.
 *
 * State: none; the limits and readers are fixed per client.
 */
import type { Dispatcher } from 'undici';
import type { Clock, RetryClass } from '../../core/index.js';
import type { BodyBudget, BodyLease } from './body-budget.js';
import { exceedsDepth, mayExceedDepth } from '../wire-limits.js';
import type { ErrorBodyInfo, ErrorBodyReader } from './error-body.js';
import type { HttpRequest, HttpResponse } from './http-client.js';
import type { Attempt, HttpFailures } from './http-failure.js';
import { parseRetryAfterMs } from './retry-after.js';

export interface BodyRules {
  readonly maxResponseBytes: number;
  /** The bytes of bodies read at once, shared with other requests and clients. */
  readonly budget: BodyBudget;
  readonly maxJsonDepth: number;
  readonly parseJson: (text: string) => unknown;
  readonly errorBody: ErrorBodyReader | undefined;
  /** For Retry-After dates. */
  readonly clock: Clock;
}

/** A body read: its text, or why it was dropped (larger than `maxResponseBytes`, or past the in-flight budget). */
export type BodyRead = { readonly text: string } | { readonly over: 'size' } | { readonly over: 'budget'; readonly readBytes: number };

/**
 * Reads the body as UTF-8 within `maxBytes` and `lease` (bytes leased as they arrive, a declared
 * Content-Length up front); past either the socket is dropped. The caller releases the lease.
 */
export async function readCapped(res: Dispatcher.ResponseData, maxBytes: number, lease: BodyLease): Promise<BodyRead> {
  const drop = (): void => {
    // Destroying an undici body emits an abort error; nobody else listens, so swallow it here.
    res.body.on('error', () => undefined);
    res.body.destroy();
  };
  const declared = Number(headerOf(res.headers['content-length']) ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    drop();
    return { over: 'size' };
  }
  if (Number.isFinite(declared) && declared > 0 && !lease.cover(declared)) {
    drop();
    return { over: 'budget', readBytes: 0 };
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body) {
    const buf = chunk as Buffer;
    total += buf.length;
    if (total > maxBytes) {
      drop();
      return { over: 'size' };
    }
    if (!lease.cover(total)) {
      drop();
      return { over: 'budget', readBytes: total - buf.length };
    }
    chunks.push(buf);
  }
  return { text: Buffer.concat(chunks, total).toString('utf8') };
}

/** The response of `req` with its body as read: the parsed 2xx body, or the failed attempt. */
export function parseResponse(
  res: Dispatcher.ResponseData,
  read: BodyRead,
  req: HttpRequest,
  rules: BodyRules,
  failures: HttpFailures,
): HttpResponse | Attempt {
  const { fail } = failures;
  const isWrite = req.kind === 'write';
  const status = res.statusCode;
  if ('over' in read && read.over === 'budget') {
    const { budget } = rules;
    return {
      error: fail(
        'HTTP_BODY_BUDGET',
        `HTTP ${status} body dropped after ${read.readBytes} bytes: response bodies being read at once would pass the in-flight budget of ${budget.limitBytes} bytes (${budget.inUseBytes()} held by other requests); fewer concurrent look-ups, narrower queries, or retry later`,
        isWrite ? 'unknown_outcome' : 'retryable',
        req,
        { status, budgetBytes: budget.limitBytes, inUseBytes: budget.inUseBytes() },
      ),
      retriable: !isWrite,
    };
  }
  if ('over' in read) {
    return {
      error: fail(
        'HTTP_INVALID_BODY',
        `HTTP ${status} body exceeds maxResponseBytes (${rules.maxResponseBytes}); narrow the query or raise the limit`,
        isWrite ? 'unknown_outcome' : 'not_retryable',
        req,
        { status, maxResponseBytes: rules.maxResponseBytes },
      ),
      retriable: false,
    };
  }
  const { text } = read;
  const maxJsonDepth = rules.maxJsonDepth;
  const parsed = tryParse(text, rules.parseJson);
  const tooDeep = parsed.ok && mayExceedDepth(text, maxJsonDepth) && exceedsDepth(parsed.value, maxJsonDepth);
  if (status >= 200 && status < 300) {
    // A write that was accepted (2xx) but answered with garbage may still have taken effect.
    const badBody: RetryClass = isWrite ? 'unknown_outcome' : 'not_retryable';
    if (text.trim() === '') {
      return { error: fail('HTTP_INVALID_BODY', `HTTP ${status} with an empty body where JSON was expected`, badBody, req, { status }), retriable: false };
    }
    if (!parsed.ok) {
      const contentType = headerOf(res.headers['content-type']) ?? 'unknown';
      return {
        error: fail(
          'HTTP_INVALID_BODY',
          `HTTP ${status} body is not JSON (content-type ${contentType}, starts with ${JSON.stringify(text.slice(0, 24))})`,
          badBody,
          req,
          { status, contentType },
        ),
        retriable: false,
      };
    }
    if (tooDeep) {
      return {
        error: fail(
          'HTTP_BODY_TOO_DEEP',
          `HTTP ${status} body nests objects or arrays deeper than maxJsonDepth (${maxJsonDepth}); refused before anything reads it`,
          badBody,
          req,
          { status, maxJsonDepth },
        ),
        retriable: false,
      };
    }
    return { status, body: parsed.value };
  }
  // an error body too deep to trust is read as no body
  const info: ErrorBodyInfo = (parsed.ok && !tooDeep ? rules.errorBody?.(parsed.value) : undefined) ?? {};
  const retryAfterMs = parseRetryAfterMs(res.headers['retry-after'], rules.clock.now());
  return failures.status(req, status, info, retryAfterMs);
}

function tryParse(text: string, parse: (t: string) => unknown): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: parse(text) };
  } catch {
    return { ok: false };
  }
}

function headerOf(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
