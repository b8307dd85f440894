/**
 * The JSON-RPC client: standard Solana methods plus the service's extended V2 account queries.
 * Reads are retried by the HTTP layer; `sendTransaction` and `requestAirdrop` are writes, sent
 * once: a timeout or transport failure on them is `unknown_outcome` (check the signature status).
 */
import { z } from 'zod';
import { ChainpilotError } from '../../core/index.js';
import { createHttpClient, sharedHttpOptions, type SharedHttpOptions, parseJsonLossless } from '../http/index.js';
import type { Commitment } from './commitment.js';
import { bigIntWire, contextSchema, rpcAccountSchema, rpcTransactionSchema, signatureStatusSchema } from './rpc-schemas.js';
import { createRpcTransport, readRpcError, type RpcBatchItem } from './rpc-transport.js';
import type {
  AccountReadOptions,
  CommitmentOptions,
  PrioritizationFee,
  RpcAccount,
  RpcCallOptions,
  RpcTransaction,
  SignatureStatus,
  SimulationResult,
  WithContext,
} from './rpc-types.js';
import { createV2Queries, type V2Queries } from './rpc-v2.js';

/** Timeouts, retries, clock, random, logger, redactor and pools pass through to the HTTP client. */
export interface RpcClientOptions extends SharedHttpOptions {
  /** The RPC URL (`{rpc_url}`), without the key. */
  readonly url: string;
  /** The RPC key, sent as the `api_key` query parameter. */
  readonly apiKey?: string;
}

export interface SendTransactionOptions extends RpcCallOptions {
  readonly skipPreflight?: boolean;
  readonly maxRetries?: number;
  readonly preflightCommitment?: Commitment;
  readonly minContextSlot?: number;
}

export interface SimulateOptions extends RpcCallOptions {
  readonly sigVerify?: boolean;
  readonly replaceRecentBlockhash?: boolean;
  readonly commitment?: Commitment;
  readonly accounts?: { readonly addresses: readonly string[]; readonly encoding: 'base64' };
}

export interface RpcClient extends V2Queries {
  getBalance(address: string, opts?: CommitmentOptions): Promise<WithContext<bigint>>;
  getAccountInfo(address: string, opts?: AccountReadOptions): Promise<WithContext<RpcAccount | null>>;
  /** Up to 100 addresses in one consistent read (more is rejected: one response, one slot). */
  getMultipleAccounts(addresses: readonly string[], opts?: AccountReadOptions): Promise<WithContext<(RpcAccount | null)[]>>;
  getLatestBlockhash(opts?: CommitmentOptions): Promise<WithContext<{ blockhash: string; lastValidBlockHeight: number }>>;
  getBlockHeight(opts?: CommitmentOptions): Promise<number>;
  getSlot(opts?: CommitmentOptions): Promise<number>;
  isBlockhashValid(blockhash: string, opts?: CommitmentOptions): Promise<WithContext<boolean>>;
  /** Sends a signed, base64-encoded transaction once; returns its signature. */
  sendTransaction(txBase64: string, opts?: SendTransactionOptions): Promise<string>;
  /** Any number of signatures (chunked by 256); the context is the lowest slot among chunks. */
  getSignatureStatuses(
    signatures: readonly string[],
    opts?: RpcCallOptions & { searchTransactionHistory?: boolean },
  ): Promise<WithContext<(SignatureStatus | null)[]>>;
  simulateTransaction(txBase64: string, opts?: SimulateOptions): Promise<WithContext<SimulationResult>>;
  getTransaction(signature: string, opts?: CommitmentOptions & { maxSupportedTransactionVersion?: number }): Promise<RpcTransaction | null>;
  getRecentPrioritizationFees(addresses?: readonly string[], opts?: RpcCallOptions): Promise<PrioritizationFee[]>;
  requestAirdrop(address: string, lamports: bigint, opts?: CommitmentOptions): Promise<string>;
  /**
   * Sends read calls as one JSON-RPC 2.0 batch (one HTTP request, retried as a read); each answer
   * is its result or its own coded error. Writes are refused: send them alone.
   */
  batch(calls: readonly { readonly method: string; readonly params: unknown[] }[], opts?: RpcCallOptions): Promise<RpcBatchItem[]>;
  /** Calls any other method; the result is returned as parsed (large integers as strings). */
  call(method: string, params: unknown[], opts?: RpcCallOptions & { kind?: 'read' | 'write' }): Promise<unknown>;
  close(): Promise<void>;
}

const SIGNATURE_CHUNK = 256;
const WRITE_METHODS = new Set(['sendTransaction', 'requestAirdrop']);
const MULTIPLE_ACCOUNTS_MAX = 100;

const withContext = <T extends z.ZodType>(value: T) => z.looseObject({ context: contextSchema, value });

// Result schemas are built once: a zod schema compiles its checks on first use, so a schema built
// per call costs that compilation (and its garbage) on every request.
const balanceResult = withContext(bigIntWire);
const accountInfoResult = withContext(rpcAccountSchema.nullable());
const multipleAccountsResult = withContext(z.array(rpcAccountSchema.nullable()));
const latestBlockhashResult = withContext(z.looseObject({ blockhash: z.string(), lastValidBlockHeight: z.number().int() }));
const integerResult = z.number().int();
const booleanResult = withContext(z.boolean());
const signatureResult = z.string().min(1);
const signatureStatusesResult = withContext(z.array(signatureStatusSchema.nullable()));
const simulationResult = withContext(
  z.looseObject({
    err: z.unknown().nullable().default(null),
    logs: z.array(z.string()).nullable().default(null),
    accounts: z.array(rpcAccountSchema.nullable()).nullable().default(null),
    unitsConsumed: z.number().int().optional(),
  }),
);
const transactionResult = rpcTransactionSchema.nullable();
const prioritizationFeesResult = z.array(z.looseObject({ slot: z.number().int(), prioritizationFee: bigIntWire }));
const anyResult = z.unknown();

/** Creates a JSON-RPC client. */
export function createRpcClient(options: RpcClientOptions): RpcClient {
  const { telemetry, ...shared } = sharedHttpOptions(options);
  // The HTTP layer reports retries; calls are reported by the transport, which knows the method.
  const onRetry = telemetry?.retry?.bind(telemetry);
  const http = createHttpClient({
    baseUrl: options.url,
    service: 'rpc',
    ...(options.apiKey ? { auth: { kind: 'query' as const, name: 'api_key', value: options.apiKey } } : {}),
    ...shared,
    ...(onRetry ? { telemetry: { retry: onRetry } } : {}),
    errorBody: readRpcError,
    parseJson: parseJsonLossless,
  });
  const rpc = createRpcTransport(http, telemetry);
  const read = (signal: AbortSignal | undefined) => ({ kind: 'read' as const, signal });
  const cfg = (o: CommitmentOptions | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> =>
    strip({ commitment: o?.commitment, minContextSlot: o?.minContextSlot, ...extra });

  const client: RpcClient = {
    getBalance: (address, o) => rpc.call('getBalance', [address, cfg(o)], balanceResult, read(o?.signal)),
    getAccountInfo: (address, o) => rpc.call('getAccountInfo', [address, cfg(o, { encoding: 'base64' })], accountInfoResult, read(o?.signal)),
    async getMultipleAccounts(addresses, o) {
      if (addresses.length === 0 || addresses.length > MULTIPLE_ACCOUNTS_MAX) {
        throw invalidParam(
          'getMultipleAccounts',
          'addresses',
          `pass 1 to ${MULTIPLE_ACCOUNTS_MAX} addresses (got ${addresses.length}); split larger sets yourself, accepting different slots`,
        );
      }
      return rpc.call('getMultipleAccounts', [[...addresses], cfg(o, { encoding: 'base64' })], multipleAccountsResult, read(o?.signal));
    },
    getLatestBlockhash: (o) => rpc.call('getLatestBlockhash', [cfg(o)], latestBlockhashResult, read(o?.signal)),
    getBlockHeight: (o) => rpc.call('getBlockHeight', [cfg(o)], integerResult, read(o?.signal)),
    getSlot: (o) => rpc.call('getSlot', [cfg(o)], integerResult, read(o?.signal)),
    isBlockhashValid: (blockhash, o) => rpc.call('isBlockhashValid', [blockhash, cfg(o)], booleanResult, read(o?.signal)),
    sendTransaction: (txBase64, o) =>
      rpc.call(
        'sendTransaction',
        [
          txBase64,
          strip({
            encoding: 'base64',
            skipPreflight: o?.skipPreflight,
            maxRetries: o?.maxRetries,
            preflightCommitment: o?.preflightCommitment,
            minContextSlot: o?.minContextSlot,
          }),
        ],
        signatureResult,
        { kind: 'write', signal: o?.signal },
      ),
    async getSignatureStatuses(signatures, o) {
      if (signatures.length === 0) return { context: { slot: 0 }, value: [] };
      const chunks: string[][] = [];
      for (let i = 0; i < signatures.length; i += SIGNATURE_CHUNK) chunks.push(signatures.slice(i, i + SIGNATURE_CHUNK));
      const results = await Promise.all(
        chunks.map((c) =>
          rpc.call('getSignatureStatuses', [c, strip({ searchTransactionHistory: o?.searchTransactionHistory })], signatureStatusesResult, read(o?.signal)),
        ),
      );
      for (const [i, r] of results.entries()) {
        if (r.value.length !== chunks[i]?.length) {
          throw new ChainpilotError('RPC_INVALID_RESPONSE', `getSignatureStatuses: asked for ${chunks[i]?.length ?? 0} statuses, got ${r.value.length}`, {
            retry: 'retryable',
            context: { method: 'getSignatureStatuses' },
          });
        }
      }
      return { context: { slot: Math.min(...results.map((r) => r.context.slot)) }, value: results.flatMap((r) => r.value) };
    },
    simulateTransaction: (txBase64, o) =>
      rpc.call(
        'simulateTransaction',
        [
          txBase64,
          strip({
            encoding: 'base64',
            sigVerify: o?.sigVerify,
            replaceRecentBlockhash: o?.replaceRecentBlockhash,
            commitment: o?.commitment,
            accounts: o?.accounts ? { addresses: [...o.accounts.addresses], encoding: o.accounts.encoding } : undefined,
          }),
        ],
        simulationResult,
        read(o?.signal),
      ),
    getTransaction: (signature, o) =>
      rpc.call(
        'getTransaction',
        [signature, strip({ encoding: 'base64', commitment: o?.commitment, maxSupportedTransactionVersion: o?.maxSupportedTransactionVersion ?? 0 })],
        transactionResult,
        read(o?.signal),
      ),
    getRecentPrioritizationFees: (addresses, o) =>
      rpc.call('getRecentPrioritizationFees', addresses && addresses.length > 0 ? [[...addresses]] : [], prioritizationFeesResult, read(o?.signal)),
    async requestAirdrop(address, lamports, o) {
      if (typeof lamports !== 'bigint' || lamports <= 0n || lamports > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw invalidParam('requestAirdrop', 'lamports', 'pass a positive bigint of lamports below 2^53');
      }
      return rpc.call('requestAirdrop', [address, Number(lamports), cfg(o)], signatureResult, { kind: 'write', signal: o?.signal });
    },
    async batch(calls, o) {
      const write = calls.find((c) => WRITE_METHODS.has(c.method));
      if (write) throw invalidParam('batch', 'calls', `${write.method} is a write; send it alone with its own method so it is never retried`);
      return rpc.batch(calls, { signal: o?.signal });
    },
    call: (method, params, o) => rpc.call(method, params, anyResult, { kind: o?.kind ?? 'read', signal: o?.signal }),
    ...createV2Queries(rpc),
    close: () => http.close(),
  };
  return client;
}

function strip(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

/** A coded error for a bad RPC call argument. */
export function invalidParam(method: string, field: string, fix: string): ChainpilotError {
  return new ChainpilotError('RPC_INVALID_PARAM', `${method}: ${field}: ${fix}`, { retry: 'not_retryable', context: { method, field } });
}
