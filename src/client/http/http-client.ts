/**
 * The HTTP layer every REST, JSON-RPC and swap client sits on: undici keep-alive pools per origin,
 * a per-request timeout and AbortSignal, authentication by header or query parameter, redaction of
 * keys, and bounded retries of reads (429, 408, 5xx, resets) with capped exponential backoff, full
 * jitter and Retry-After. Writes are sent once; a failure whose effect is unknown says so.
 */
import type { Dispatcher } from 'undici';
import {
  ChainpilotError,
  createRedactor,
  redactUrl,
  seededRandom,
  systemClock,
  type Clock,
  type Logger,
  type Random,
  type Redactor,
} from '../../core/index.js';
import { longTimeout } from '../../core/clock.js';
import type { ErrorBodyReader } from './error-body.js';
import { createHttpFailures, type Attempt } from './http-failure.js';
import { observeSafely, outcomeOf, type HttpTelemetry } from './http-telemetry.js';
import { createPoolRegistry, type PoolRegistry } from './pool-registry.js';
import { createRequestBuilder } from './request-builder.js';
import { processBodyBudget, type BodyBudget } from './body-budget.js';
import { parseResponse, readCapped, type BodyRead, type BodyRules } from './response-body.js';
import { resolveRetryPolicy, withRetries } from './retry-policy.js';
import { WIRE_LIMITS } from '../wire-limits.js';

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
   * The budget of response bodies read at once, shared with other requests and clients (default the
   * process's, `WIRE_LIMITS.maxInFlightResponseBytes`, 128 MiB): a body past it fails with HTTP_BODY_BUDGET.
   */
  readonly bodyBudget?: BodyBudget;
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
export type SharedHttpOptions = Pick<
  HttpClientOptions,
  'timeoutMs' | 'retry' | 'clock' | 'random' | 'logger' | 'redactor' | 'pools' | 'telemetry' | 'bodyBudget'
>;

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
    ...(o.bodyBudget ? { bodyBudget: o.bodyBudget } : {}),
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

/** Creates an HTTP client for one base URL. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const service = options.service;
  const base = parseBase(options.baseUrl, service);
  const redactor = options.redactor ?? createRedactor();
  if (options.auth) redactor.add(options.auth.value);
  const clock = options.clock ?? systemClock();
  const random = options.random ?? seededRandom(`http:${service}`);
  const ownPools = options.pools === undefined;
  const pools = options.pools ?? createPoolRegistry();
  const timeoutMs = positive(options.timeoutMs ?? 10_000, 'timeoutMs', service);
  const policy = resolveRetryPolicy(options.retry);
  const rules: BodyRules = {
    maxResponseBytes: positive(options.maxResponseBytes ?? WIRE_LIMITS.maxResponseBytes, 'maxResponseBytes', service),
    budget: options.bodyBudget ?? processBodyBudget(),
    maxJsonDepth: positive(options.maxJsonDepth ?? WIRE_LIMITS.maxJsonDepth, 'maxJsonDepth', service),
    parseJson: options.parseJson ?? ((t: string): unknown => JSON.parse(t) as unknown),
    errorBody: options.errorBody,
    clock,
  };
  const build = createRequestBuilder({ prefix: base.prefix, auth: options.auth, headers: options.headers });
  const failures = createHttpFailures(service, redactor);

  /** One attempt within its timeout and the caller's signal: the parsed 2xx body, or how it failed. */
  const attemptOnce = async (req: HttpRequest): Promise<HttpResponse | Attempt> => {
    if (req.signal?.aborted) throw failures.aborted(req, false);
    const controller = new AbortController();
    let timedOut = false;
    const limitMs = req.timeoutMs ?? timeoutMs;
    const cancelTimer = longTimeout(() => {
      timedOut = true;
      controller.abort();
    }, limitMs);
    const onAbort = (): void => controller.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    // held until the body is parsed (or dropped): the text and the parsed value are as large as the bytes
    const lease = rules.budget.lease();
    try {
      const { headers, body } = build.content(req);
      let res: Dispatcher.ResponseData;
      let read: BodyRead;
      try {
        res = await pools.get(base.origin).request({
          method: req.method,
          path: build.path(req),
          headers,
          ...(body !== undefined ? { body } : {}),
          signal: controller.signal,
        });
        read = await readCapped(res, rules.maxResponseBytes, lease);
      } catch (e) {
        if (req.signal?.aborted) throw failures.aborted(req, true);
        return failures.transport(req, timedOut, limitMs, e);
      }
      return parseResponse(res, read, req, rules, failures);
    } finally {
      lease.release();
      cancelTimer();
      req.signal?.removeEventListener('abort', onAbort);
    }
  };

  const request = withRetries(attemptOnce, policy, { service, clock, random, redactor, logger: options.logger, telemetry: options.telemetry });

  /** `request`, timed for the observer (only when it has a `request` method). */
  const telemetry = options.telemetry;
  const onRequest = telemetry?.request?.bind(telemetry);
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
