/**
 * The swap service client: POST /swap builds a transaction for the caller to inspect, sign and send.
 * The call is a write: it is sent once and never retried blindly. The returned transaction keeps
 * the service's own partial signatures.
 */
import { Transaction, VersionedTransaction } from '@solana/web3.js';
import { ChainpilotError, type Clock, type Logger, type Redactor } from '../../core/index.js';
import { createHttpClient, readDataApiError, type HttpTelemetry, type PoolRegistry } from '../http/index.js';
import { parseWireTransaction } from '../wire-transaction.js';
import { serializeSwapRequest, type SwapRequest } from './swap-request.js';

export interface SwapClientOptions {
  /** `{swap_url}`. */
  readonly url: string;
  /** Authentication for the swap service is not shown by the spec; a key is sent only when given. */
  readonly apiKey?: string;
  /** Header carrying `apiKey` (default `x-api-key`). */
  readonly apiKeyHeader?: string;
  readonly timeoutMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly redactor?: Redactor;
  readonly pools?: PoolRegistry;
  /** Observer of requests (metrics); nothing is measured without one. */
  readonly telemetry?: HttpTelemetry;
}

export interface BuiltSwap {
  /**
   * The decoded transaction, versioned when possible, else legacy: web3.js objects, decoded on
   * first read (the live executor works on `raw` and never reads it).
   */
  readonly transaction: VersionedTransaction | Transaction;
  /** The exact bytes the service returned. */
  readonly raw: Uint8Array;
  /** `txn` as the service sent it (base64). */
  readonly base64: string;
  /** The whole response body (undocumented fields kept). */
  readonly body: Record<string, unknown>;
  /** The exact JSON text that was sent. */
  readonly requestText: string;
}

export interface SwapClient {
  buildSwap(req: SwapRequest, opts?: { readonly signal?: AbortSignal }): Promise<BuiltSwap>;
  close(): Promise<void>;
}

/** Creates a swap client. */
export function createSwapClient(options: SwapClientOptions): SwapClient {
  const http = createHttpClient({
    baseUrl: options.url,
    service: 'swap',
    ...(options.apiKey ? { auth: { kind: 'header' as const, name: options.apiKeyHeader ?? 'x-api-key', value: options.apiKey } } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.redactor ? { redactor: options.redactor } : {}),
    ...(options.pools ? { pools: options.pools } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    retry: { maxAttempts: 1 },
    errorBody: readDataApiError,
  });
  return {
    async buildSwap(req, opts) {
      const requestText = serializeSwapRequest(req);
      const body = await http.json({ method: 'POST', path: '/swap', bodyText: requestText, kind: 'write', ...(opts?.signal ? { signal: opts.signal } : {}) });
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidTx('the response is not a JSON object');
      const record = body as Record<string, unknown>;
      const base64 = record['txn'];
      if (typeof base64 !== 'string' || base64 === '') throw invalidTx('the response has no `txn` string');
      const raw = decodeBase64(base64);
      const parsed = parseWireTransaction(raw);
      if (!parsed.ok) throw invalidTx(`\`txn\` is not a decodable Solana transaction (${parsed.reason})`);
      let transaction: VersionedTransaction | Transaction | undefined;
      return {
        get transaction() {
          return (transaction ??= decodeTransaction(raw));
        },
        raw,
        base64,
        body: record,
        requestText,
      };
    },
    close: () => http.close(),
  };
}

/**
 * Decodes wire bytes as a VersionedTransaction, falling back to a legacy Transaction. `buildSwap`
 * checks the bytes with {@link parseWireTransaction} first (the same rule without objects: every
 * length fits and nothing trails the message), so this decode is for callers who want objects.
 */
export function decodeTransaction(raw: Uint8Array): VersionedTransaction | Transaction {
  try {
    const tx = VersionedTransaction.deserialize(raw);
    // Reject trailing garbage: a real transaction re-serialises to the same bytes.
    if (Buffer.from(tx.serialize()).equals(Buffer.from(raw))) return tx;
  } catch {
    // fall through to legacy
  }
  try {
    return Transaction.from(raw);
  } catch {
    throw invalidTx('`txn` is not a decodable Solana transaction (neither versioned nor legacy)');
  }
}

function decodeBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) throw invalidTx('`txn` is not valid base64');
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function invalidTx(what: string): ChainpilotError {
  return new ChainpilotError('SWAP_INVALID_TRANSACTION', `swap: ${what}; the swap service answered something other than a transaction`, {
    retry: 'not_retryable',
    context: { service: 'swap' },
  });
}
