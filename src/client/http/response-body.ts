/**
 * A response's body, bounded and parsed: read up to `maxResponseBytes` (larger ones are dropped
 * with the socket), parsed as JSON once, refused when nested deeper than `maxJsonDepth`, and
 * turned into the parsed 2xx body or the failed attempt (with what the error body and Retry-After
 * said). A 2xx whose body cannot be used fails a write as an unknown outcome: it may have taken
 * effect.
 *
 * State: none; the limits and readers are fixed per client.
 */
import type { Dispatcher } from 'undici';
import type { Clock, RetryClass } from '../../core/index.js';
import { exceedsDepth, mayExceedDepth } from '../wire-limits.js';
import type { ErrorBodyInfo, ErrorBodyReader } from './error-body.js';
import type { HttpRequest, HttpResponse } from './http-client.js';
import type { Attempt, HttpFailures } from './http-failure.js';
import { parseRetryAfterMs } from './retry-after.js';

export interface BodyRules {
  readonly maxResponseBytes: number;
  readonly maxJsonDepth: number;
  readonly parseJson: (text: string) => unknown;
  readonly errorBody: ErrorBodyReader | undefined;
  /** For Retry-After dates. */
  readonly clock: Clock;
}

/** Reads the body as UTF-8, or returns undefined (and drops the socket) past `maxBytes`. */
export async function readCapped(res: Dispatcher.ResponseData, maxBytes: number): Promise<string | undefined> {
  const drop = (): undefined => {
    // Destroying an undici body emits an abort error; nobody else listens, so swallow it here.
    res.body.on('error', () => undefined);
    res.body.destroy();
    return undefined;
  };
  const declared = Number(headerOf(res.headers['content-length']) ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    drop();
    return;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body) {
    const buf = chunk as Buffer;
    total += buf.length;
    if (total > maxBytes) {
      drop();
      return;
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** The response of `req` with its body `text` (undefined: over `maxResponseBytes`): the parsed 2xx body, or the failed attempt. */
export function parseResponse(
  res: Dispatcher.ResponseData,
  text: string | undefined,
  req: HttpRequest,
  rules: BodyRules,
  failures: HttpFailures,
): HttpResponse | Attempt {
  const { fail } = failures;
  const isWrite = req.kind === 'write';
  const status = res.statusCode;
  if (text === undefined) {
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
