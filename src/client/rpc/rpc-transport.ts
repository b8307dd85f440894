/**
 * JSON-RPC 2.0 over the HTTP layer: checks both the HTTP status and the `error` member (errors
 * arrive with HTTP 200), parses results losslessly and validates them with a schema.
 */
import type { z } from 'zod';
import { ChainpilotError, type RetryClass } from '../../core/index.js';
import { observeSafely, outcomeOf, type ErrorBodyReader, type HttpClient, type HttpTelemetry } from '../http/index.js';

/** JSON-RPC error codes that signal a transient node condition. */
const TRANSIENT_RPC_CODES = new Set([-32004, -32005, -32007, -32014, -32016, 429]);

/** HTTP error bodies of a JSON-RPC endpoint: `{error: {code, message}}` with a numeric code. */
export const readRpcError: ErrorBodyReader = (body) => {
  if (typeof body !== 'object' || body === null) return undefined;
  const err = (body as { error?: unknown }).error;
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, message } = err as { code?: unknown; message?: unknown };
  const out: { apiCode?: string; apiMessage?: string } = {};
  if (typeof code === 'number' || typeof code === 'string') out.apiCode = String(code);
  if (typeof message === 'string') out.apiMessage = message;
  return out;
};

/** One answer of a JSON-RPC batch: its result, or the coded error of that call alone. */
export type RpcBatchItem = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: ChainpilotError };

export interface RpcTransport {
  /** Calls `method` and validates its result with `schema`. */
  call<S extends z.ZodType>(
    method: string,
    params: unknown[],
    schema: S,
    opts: { kind: 'read' | 'write'; signal?: AbortSignal | undefined },
  ): Promise<z.output<S>>;
  /** Sends read calls as one JSON-RPC batch; answers come back in call order, matched by id. */
  batch(calls: readonly { readonly method: string; readonly params: unknown[] }[], opts: { signal?: AbortSignal | undefined }): Promise<RpcBatchItem[]>;
}

/**
 * Creates the transport on an HTTP client whose base URL is the RPC URL. With `telemetry`, each
 * call is reported once under its JSON-RPC method (`batch` for a batch) with its outcome: an RPC
 * error that arrived with HTTP 200 is an error here.
 */
export function createRpcTransport(http: HttpClient, telemetry?: HttpTelemetry): RpcTransport {
  let nextId = 1;
  const onRequest = telemetry?.request?.bind(telemetry);
  const observed = <T>(method: string, run: () => Promise<T>): Promise<T> => {
    if (!onRequest) return run();
    const t0 = performance.now();
    const note = (outcome: ReturnType<typeof outcomeOf>): void => {
      const seconds = (performance.now() - t0) / 1000;
      observeSafely(() => onRequest('rpc', method, seconds, outcome));
    };
    return run().then(
      (v) => {
        note('ok');
        return v;
      },
      (e: unknown) => {
        note(outcomeOf(e));
        throw e;
      },
    );
  };
  const rpcError = (method: string, error: unknown, kind: 'read' | 'write'): ChainpilotError => {
    const { code, message, data } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown; data?: unknown };
    const rpcCode = typeof code === 'number' ? code : undefined;
    const rpcMessage = typeof message === 'string' ? message : String(error);
    // A transient node error on a write (sendTransaction) is still resolved by querying, not resending.
    const transient = rpcCode !== undefined && TRANSIENT_RPC_CODES.has(rpcCode);
    const retry: RetryClass = transient ? (kind === 'write' ? 'unknown_outcome' : 'retryable') : 'not_retryable';
    return new ChainpilotError('RPC_ERROR', http.redactor.redact(`${method} failed with RPC error ${rpcCode ?? '?'}: ${rpcMessage}`), {
      retry,
      context: {
        method,
        rpcCode,
        rpcMessage: http.redactor.redact(rpcMessage),
        rpcData: data === undefined ? undefined : http.redactor.redact(safeStringify(data)).slice(0, 2000),
      },
    });
  };
  const transport: RpcTransport = {
    async batch(calls, opts) {
      if (calls.length === 0) return [];
      const ids = calls.map(() => nextId++);
      const body = await http.json({
        method: 'POST',
        path: '',
        body: calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], method: c.method, params: c.params })),
        kind: 'read',
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      if (!Array.isArray(body)) {
        const whole = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
        if (whole !== undefined && whole !== null) throw rpcError('batch', whole, 'read');
        throw invalid('batch', 'the response to a batch is not an array');
      }
      const byId = new Map<unknown, { result?: unknown; error?: unknown }>();
      for (const item of body)
        if (typeof item === 'object' && item !== null) byId.set((item as { id?: unknown }).id, item as { result?: unknown; error?: unknown });
      return calls.map((c, i): RpcBatchItem => {
        const item = byId.get(ids[i]);
        if (!item) return { ok: false, error: invalid(c.method, 'the batch response has no answer for this call') };
        if (item.error !== undefined && item.error !== null) return { ok: false, error: rpcError(c.method, item.error, 'read') };
        if (!('result' in item)) return { ok: false, error: invalid(c.method, 'the response has neither result nor error') };
        return { ok: true, result: item.result };
      });
    },
    async call(method, params, schema, opts) {
      const id = nextId++;
      const body = await http.json({
        method: 'POST',
        path: '',
        body: { jsonrpc: '2.0', id, method, params },
        kind: opts.kind,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw invalid(method, 'the response is not a JSON-RPC object', opts.kind);
      }
      const envelope = body as { error?: unknown; result?: unknown };
      if (envelope.error !== undefined && envelope.error !== null) throw rpcError(method, envelope.error, opts.kind);
      if (!('result' in envelope)) throw invalid(method, 'the response has neither result nor error', opts.kind);
      const parsed = schema.safeParse(envelope.result);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw invalid(method, `result.${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`, opts.kind);
      }
      return parsed.data;
    },
  };
  if (!onRequest) return transport;
  return {
    batch: (calls, opts) => observed('batch', () => transport.batch(calls, opts)),
    call: (method, params, schema, opts) => observed(method, () => transport.call(method, params, schema, opts)),
  };
}

/** A malformed answer to a write (sendTransaction) leaves its outcome unknown. */
function invalid(method: string, what: string, kind: 'read' | 'write' = 'read'): ChainpilotError {
  return new ChainpilotError('RPC_INVALID_RESPONSE', `${method}: ${what}; the RPC endpoint may not speak standard JSON-RPC`, {
    retry: kind === 'write' ? 'unknown_outcome' : 'not_retryable',
    context: { method },
  });
}

function safeStringify(v: unknown): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- JSON.stringify returns undefined for undefined or a function (lib types say string)
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
  } catch {
    return '[unserialisable]';
  }
}
