/**
 * The HTTP layer every REST, JSON-RPC and swap client sits on: undici keep-alive pools per origin,
 * a per-request timeout and AbortSignal, authentication by header or query parameter, redaction of
 * keys, and bounded retries of reads (429, 408, 5xx, resets) with capped exponential backoff, full
 * jitter and Retry-After. Writes are sent once; a failure whose effect is unknown says so.
 */
import type { Dispatcher } from 'undici';
import {
  backoffWithJitter,
  ChainpilotError,
  createRedactor,
  redactUrl,
  seededRandom,
  systemClock,
  type Clock,
  type ErrorCode,
  type Logger,
  type Random,
  type Redactor,
  type RetryClass,
} from '../../core/index.js';
import { clockSleep, longTimeout } from '../../core/clock.js';
import { classifyStatus } from './http-status.js';
import type { ErrorBodyInfo, ErrorBodyReader } from './error-body.js';
import { createPoolRegistry, type PoolRegistry } from './pool-registry.js';
import { parseRetryAfterMs } from './retry-after.js';
import { exceedsDepth, mayExceedDepth, WIRE_LIMITS } from '../wire-limits.js';
import { observeSafely, outcomeOf, type HttpTelemetry } from './http-telemetry.js';

/** How a client authenticates: a header (`x-api-key`) or a query parameter (`api_key`). */
export type HttpAuth =
  { readonly kind: 'header'; readonly name: string; readonly value: string } | { readonly kind: 'query'; readonly name: string; readonly value: string };

/** Retry budget for reads. Writes are never retried. */
export interface RetryOptions {
  /** Total attempts including the first (default 4; 1 disables retries). */
  readonly maxAttempts?: number;
  /** Backoff base (default 250 ms): attempt n waits uniform [0, min(cap, base * 2^n)]. */
  readonly baseDelayMs?: number;
  /** Backoff cap (default 5 000 ms). */
  readonly maxDelayMs?: number;
  /** Give up when the next wait would end later than this after the first attempt (default 30 000 ms). */
  readonly maxElapsedMs?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown at once (default 60 000 ms). */
  readonly maxRetryAfterMs?: number;
}

export interface HttpClientOptions {
  /** Base URL, with an optional path prefix (`https://api.example/base`). */
  readonly baseUrl: string;
  /** Label used in errors and logs (`data-api`, `prediction`, `rpc`, `swap`). */
  readonly service: string;
  readonly auth?: HttpAuth;
  /** Per-attempt timeout (default 10 000 ms). */
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  /** Clock for backoff waits and Retry-After dates (default system clock). */
  readonly clock?: Clock;
  /** Jitter source (default seeded from the service label). */
  readonly random?: Random;
  /** Debug lines for retries; every line is redacted. */
  readonly logger?: Logger;
  /** The process redactor; the auth value is registered with it. */
  readonly redactor?: Redactor;
  /** Reads the interface's error body shape into the error context. */
  readonly errorBody?: ErrorBodyReader;
  /** JSON parser for response bodies (default `JSON.parse`). */
  readonly parseJson?: (text: string) => unknown;
  /** Shared pools; the client creates (and owns) its own when omitted. */
  readonly pools?: PoolRegistry;
  /** Extra headers sent on every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A response body larger than this is refused (default `WIRE_LIMITS.maxResponseBytes`, 64 MiB): memory stays bounded. */
  readonly maxResponseBytes?: number;
  /**
   * A response body nested deeper than this (objects and arrays; the body itself is level 1) is
   * refused with HTTP_BODY_TOO_DEEP (default `WIRE_LIMITS.maxJsonDepth`, 64, the Datastream's limit too):
   * nothing after the client ever walks a value thousands of levels deep.
   */
  readonly maxJsonDepth?: number;
  /** Observer of requests and retries (metrics); nothing is measured without one. */
  readonly telemetry?: HttpTelemetry;
}

/** The options every service client passes through to its HTTP client unchanged. */
export type SharedHttpOptions = Pick<HttpClientOptions, 'timeoutMs' | 'retry' | 'clock' | 'random' | 'logger' | 'redactor' | 'pools' | 'telemetry'>;

/** Copies the shared options that are set (absent ones keep the HTTP client's defaults). */
export function sharedHttpOptions(o: SharedHttpOptions): SharedHttpOptions {
  return {
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.retry ? { retry: o.retry } : {}),
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.random ? { random: o.random } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.redactor ? { redactor: o.redactor } : {}),
    ...(o.pools ? { pools: o.pools } : {}),
    ...(o.telemetry ? { telemetry: o.telemetry } : {}),
  };
}

export type QueryValue = string | number | boolean | undefined | null | readonly (string | number)[];

export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  /** Path below the base URL, starting with `/`. Path segments must already be encoded. */
  readonly path: string;
  /** Query parameters; undefined and null are left out, arrays become comma lists. */
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** JSON body (serialised with JSON.stringify). */
  readonly body?: unknown;
  /** A pre-serialised JSON body (used where numbers must be exact literals). */
  readonly bodyText?: string;
  /** `read` requests are retried; `write` requests are sent once. POST reads are reads. */
  readonly kind: 'read' | 'write';
  readonly signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout. */
  readonly timeoutMs?: number;
}

/** A parsed 2xx response. */
export interface HttpResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface HttpClient {
  /** Sends a request and returns its parsed JSON body, or throws a ChainpilotError. */
  request(req: HttpRequest): Promise<HttpResponse>;
  /** Shorthand for `request(req).body`. */
  json(req: HttpRequest): Promise<unknown>;
  /** The redactor that knows this client's key. */
  readonly redactor: Redactor;
  /** Closes the pools this client created (not shared ones). */
  close(): Promise<void>;
}

interface Attempt {
  readonly error: ChainpilotError;
  /** Server-requested wait, when it sent Retry-After. */
  readonly retryAfterMs?: number;
  /** True when a read may be retried after this failure. */
  readonly retriable: boolean;
}

/** Creates an HTTP client for one base URL. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const base = parseBase(options.baseUrl, options.service);
  const redactor = options.redactor ?? createRedactor();
  if (options.auth) redactor.add(options.auth.value);
  const clock = options.clock ?? systemClock();
  const random = options.random ?? seededRandom(`http:${options.service}`);
  const ownPools = options.pools === undefined;
  const pools = options.pools ?? createPoolRegistry();
  const timeoutMs = positive(options.timeoutMs ?? 10_000, 'timeoutMs', options.service);
  const retry = {
    maxAttempts: Math.max(1, Math.floor(options.retry?.maxAttempts ?? 4)),
    baseDelayMs: options.retry?.baseDelayMs ?? 250,
    maxDelayMs: options.retry?.maxDelayMs ?? 5_000,
    maxElapsedMs: options.retry?.maxElapsedMs ?? 30_000,
    maxRetryAfterMs: options.retry?.maxRetryAfterMs ?? 60_000,
  };
  const maxResponseBytes = positive(options.maxResponseBytes ?? WIRE_LIMITS.maxResponseBytes, 'maxResponseBytes', options.service);
  const maxJsonDepth = positive(options.maxJsonDepth ?? WIRE_LIMITS.maxJsonDepth, 'maxJsonDepth', options.service);
  const parseJson = options.parseJson ?? ((t: string): unknown => JSON.parse(t) as unknown);
  const service = options.service;

  const buildPath = (req: HttpRequest): string => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v === undefined || v === null) continue;
      params.append(k, Array.isArray(v) ? v.join(',') : String(v));
    }
    if (options.auth?.kind === 'query') params.append(options.auth.name, options.auth.value);
    const qs = params.toString();
    return (base.prefix + req.path || '/') + (qs ? `?${qs}` : '');
  };

  const fail = (
    code: ErrorCode,
    message: string,
    retryClass: RetryClass,
    req: HttpRequest,
    extra: Record<string, string | number | undefined> = {},
  ): ChainpilotError => {
    const context: Record<string, string | number> = { service, endpoint: `${req.method} ${redactor.redact(req.path)}` };
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) context[k] = typeof v === 'string' ? redactor.redact(v) : v;
    return new ChainpilotError(code, redactor.redact(`${service} ${req.method} ${req.path}: ${message}`), { retry: retryClass, context });
  };

  /** A write aborted after it may have left the process has an unknown outcome. */
  const aborted = (req: HttpRequest, maybeSent: boolean): ChainpilotError =>
    new ChainpilotError('CORE_ABORTED', redactor.redact(`${service} ${req.method} ${req.path} was aborted by the caller`), {
      retry: maybeSent && req.kind === 'write' ? 'unknown_outcome' : 'not_retryable',
      context: { service, endpoint: redactor.redact(`${req.method} ${req.path}`) },
    });

  const attemptOnce = async (req: HttpRequest): Promise<HttpResponse | Attempt> => {
    const isWrite = req.kind === 'write';
    if (req.signal?.aborted) throw aborted(req, false);
    const controller = new AbortController();
    let timedOut = false;
    const limitMs = req.timeoutMs ?? timeoutMs;
    const cancelTimer = longTimeout(() => {
      timedOut = true;
      controller.abort();
    }, limitMs);
    const onAbort = (): void => controller.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
      if (options.auth?.kind === 'header') headers[options.auth.name] = options.auth.value;
      let body: string | undefined;
      if (req.bodyText !== undefined) body = req.bodyText;
      else if (req.body !== undefined) body = JSON.stringify(req.body);
      if (body !== undefined) headers['content-type'] = 'application/json';
      let res: Dispatcher.ResponseData;
      let text: string | undefined;
      try {
        res = await pools.get(base.origin).request({
          method: req.method,
          path: buildPath(req),
          headers,
          ...(body !== undefined ? { body } : {}),
          signal: controller.signal,
        });
        text = await readCapped(res, maxResponseBytes);
      } catch (e) {
        if (req.signal?.aborted) throw aborted(req, true);
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the timeout callback sets timedOut during the await
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
      }
      const status = res.statusCode;
      if (text === undefined) {
        return {
          error: fail(
            'HTTP_INVALID_BODY',
            `HTTP ${status} body exceeds maxResponseBytes (${maxResponseBytes}); narrow the query or raise the limit`,
            isWrite ? 'unknown_outcome' : 'not_retryable',
            req,
            { status, maxResponseBytes },
          ),
          retriable: false,
        };
      }
      const parsed = tryParse(text, parseJson);
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
      const info: ErrorBodyInfo = (parsed.ok && !tooDeep ? options.errorBody?.(parsed.value) : undefined) ?? {};
      const retryAfterMs = parseRetryAfterMs(res.headers['retry-after'], clock.now());
      return statusError(status, info, retryAfterMs, req, isWrite);
    } finally {
      cancelTimer();
      req.signal?.removeEventListener('abort', onAbort);
    }
  };

  const statusError = (status: number, info: ErrorBodyInfo, retryAfterMs: number | undefined, req: HttpRequest, isWrite: boolean): Attempt => {
    const said = info.apiMessage !== undefined || info.apiCode !== undefined ? ` (${[info.apiCode, info.apiMessage].filter(Boolean).join(': ')})` : '';
    const c = classifyStatus(status, isWrite);
    const extra = { status, apiCode: info.apiCode, apiMessage: info.apiMessage, bodyCode: info.bodyCode, retryAfterMs };
    return {
      error: fail(c.code, `HTTP ${status}${said}; ${c.advice}`, c.retry, req, extra),
      retriable: c.retriable,
      ...(retryAfterMs !== undefined && c.retriable ? { retryAfterMs } : {}),
    };
  };

  const telemetry = options.telemetry;
  const onRetry = telemetry?.retry?.bind(telemetry);
  const onRequest = telemetry?.request?.bind(telemetry);

  const request = async (req: HttpRequest): Promise<HttpResponse> => {
    const started = clock.now();
    for (let attempt = 0; ; attempt++) {
      const outcome = await attemptOnce(req);
      if (!('error' in outcome)) return outcome;
      const { error } = outcome;
      const attempts = attempt + 1;
      const withAttempts = (): ChainpilotError =>
        new ChainpilotError(error.code, error.message, { retry: error.retry, context: { ...error.context, attempts } });
      if (!outcome.retriable || attempts >= retry.maxAttempts) throw withAttempts();
      if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > retry.maxRetryAfterMs) throw withAttempts();
      const jitter = backoffWithJitter(attempt, retry.baseDelayMs, retry.maxDelayMs, () => random.next());
      const waitMs = Math.max(jitter, outcome.retryAfterMs ?? 0);
      if (clock.now() + waitMs - started > retry.maxElapsedMs) throw withAttempts();
      if (onRetry) {
        const status = error.context['status'];
        observeSafely(() => onRetry(service, typeof status === 'number' ? status : undefined));
      }
      options.logger?.debug(
        { service, endpoint: error.context['endpoint'], code: error.code, attempt: attempts, waitMs },
        redactor.redact(`retrying ${service} read after ${error.code}`),
      );
      await clockSleep(clock, waitMs, req.signal);
    }
  };

  /** `request`, timed for the observer (only when it has a `request` method). */
  const observed = onRequest
    ? async (req: HttpRequest): Promise<HttpResponse> => {
        const t0 = performance.now();
        let outcome: ReturnType<typeof outcomeOf> = 'ok';
        try {
          return await request(req);
        } catch (e) {
          outcome = outcomeOf(e);
          throw e;
        } finally {
          const seconds = (performance.now() - t0) / 1000;
          observeSafely(() => onRequest(service, req.method, seconds, outcome));
        }
      }
    : request;

  return {
    request: observed,
    json: async (req) => (await observed(req)).body,
    redactor,
    close: async () => {
      if (ownPools) await pools.close();
    },
  };
}

/** Reads the body as UTF-8, or returns undefined (and drops the socket) past `maxBytes`. */
async function readCapped(res: Dispatcher.ResponseData, maxBytes: number): Promise<string | undefined> {
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

function parseBase(baseUrl: string, service: string): { origin: string; prefix: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ChainpilotError('HTTP_INVALID_OPTIONS', `${service}: baseUrl ${redactUrl(baseUrl)} is not an absolute URL; pass e.g. https://host/path`, {
      retry: 'not_retryable',
      context: { service },
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ChainpilotError('HTTP_INVALID_OPTIONS', `${service}: baseUrl must use http or https, got ${url.protocol}`, {
      retry: 'not_retryable',
      context: { service },
    });
  }
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
}

function positive(value: number, field: string, service: string): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new ChainpilotError('HTTP_INVALID_OPTIONS', `${service}: ${field} must be a positive number of milliseconds, got ${value}`, {
      retry: 'not_retryable',
      context: { service, field },
    });
  }
  return value;
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

function errorCodeOf(e: unknown): string {
  if (typeof e === 'object' && e !== null) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (e as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'unknown';
}
