/**
 * Shared plumbing of the REST clients: GET/POST through the HTTP layer, schema parsing at the
 * boundary (undocumented fields pass through), path segments, limit checks and batch splitting.
 */
import type { z } from 'zod';
import { ChainpilotError, type ErrorCode } from '../../core/index.js';
import type { HttpClient, QueryValue } from './http-client.js';

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export type Query = Readonly<Record<string, QueryValue>>;

export interface ApiContext {
  /** GET `path` (segments already encoded) and parse the body with `schema`. */
  get<S extends z.ZodType>(path: string, query: Query | undefined, schema: S, opts?: CallOptions): Promise<z.output<S>>;
  /** POST a JSON body. `kind` is `read` for documented POST reads (batches), which are retried. */
  post<S extends z.ZodType>(path: string, body: unknown, schema: S, opts?: CallOptions & { kind?: 'read' | 'write'; query?: Query }): Promise<z.output<S>>;
  /** Fails with the area's invalid-parameter code. */
  invalid(field: string, fix: string): ChainpilotError;
  /** Fails because pagination returned a cursor twice. */
  cursorRepeated(endpoint: string): ChainpilotError;
  /** Fails with the area's limit code (a limit that cannot be split without changing meaning). */
  overLimit(field: string, limit: number, got: number): ChainpilotError;
}

/** Creates the context for one REST interface. */
export function createApiContext(http: HttpClient, codes: { invalid: ErrorCode; limit: ErrorCode }, service: string): ApiContext {
  const parse = <S extends z.ZodType>(schema: S, body: unknown, endpoint: string): z.output<S> => {
    const r = schema.safeParse(body);
    if (r.success) return r.data;
    const issue = r.error.issues[0];
    const at = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    throw new ChainpilotError(
      'HTTP_INVALID_BODY',
      `${service} ${endpoint}: response field ${at} ${issue?.message ?? 'is invalid'}; the service changed or this is not ${service}`,
      {
        retry: 'not_retryable',
        context: { service, endpoint, field: at },
      },
    );
  };
  return {
    async get(path, query, schema, opts) {
      const body = await http.json({ method: 'GET', path, ...(query ? { query } : {}), kind: 'read', ...(opts?.signal ? { signal: opts.signal } : {}) });
      return parse(schema, body, `GET ${path}`);
    },
    async post(path, body, schema, opts) {
      const out = await http.json({
        method: 'POST',
        path,
        body,
        kind: opts?.kind ?? 'read',
        ...(opts?.query ? { query: opts.query } : {}),
        ...(opts?.signal ? { signal: opts.signal } : {}),
      });
      return parse(schema, out, `POST ${path}`);
    },
    cursorRepeated: (endpoint) =>
      new ChainpilotError('API_CURSOR_REPEATED', `${service} ${endpoint}: the service returned a cursor it had already returned; stopping instead of looping`, {
        retry: 'not_retryable',
        context: { service, endpoint },
      }),
    invalid: (field, fix) => new ChainpilotError(codes.invalid, `${service}: ${field}: ${fix}`, { retry: 'not_retryable', context: { service, field } }),
    overLimit: (field, limit, got) =>
      new ChainpilotError(codes.limit, `${service}: ${field} allows at most ${limit}, got ${got}; lower it or page through the results`, {
        retry: 'not_retryable',
        context: { service, field, limit, got },
      }),
  };
}

/** Encodes one path segment (a slash becomes %2F, so it cannot change the route); rejects empty values. */
export function seg(ctx: ApiContext, field: string, value: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw ctx.invalid(field, 'must be a non-empty string');
  return encodeURIComponent(value);
}

/** Checks an optional integer parameter against [min, max]. */
export function checkInt(ctx: ApiContext, field: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value)) throw ctx.invalid(field, `must be an integer, got ${value}`);
  if (value > max) throw ctx.overLimit(field, max, value);
  if (value < min) throw ctx.invalid(field, `must be at least ${min}, got ${value}`);
}

/** Checks an optional number parameter against [min, max]. */
export function checkRange(ctx: ApiContext, field: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value < min || value > max) throw ctx.invalid(field, `must be a number from ${min} to ${max}, got ${value}`);
}

/** Splits `items` into chunks of at most `size`, rejecting an empty list. */
export function chunk<T>(ctx: ApiContext, field: string, items: readonly T[], size: number): T[][] {
  if (items.length === 0) throw ctx.invalid(field, 'must not be empty');
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Merges the responses of a split batch: arrays are concatenated; objects are merged key by key
 * (arrays concatenated, nested objects merged shallowly, the first scalar kept).
 */
export function mergeBatches(results: readonly unknown[]): unknown {
  if (results.length === 1) return results[0];
  if (results.every(Array.isArray)) return results.flat();
  if (!results.every(isRecord)) return results;
  const out: Record<string, unknown> = {};
  for (const r of results) {
    for (const [k, v] of Object.entries(r)) {
      const prev = out[k];
      if (prev === undefined) out[k] = Array.isArray(v) ? [...(v as unknown[])] : isRecord(v) ? { ...v } : v;
      else if (Array.isArray(prev) && Array.isArray(v)) prev.push(...(v as unknown[]));
      else if (isRecord(prev) && isRecord(v)) Object.assign(prev, v);
      else if (typeof prev === 'number' && typeof v === 'number' && /count|total/i.test(k)) out[k] = prev + v;
    }
  }
  return out;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Runs async tasks with at most `limit` in flight, keeping result order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
