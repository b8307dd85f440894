/**
 * The JSON-RPC server: POST JSON-RPC 2.0 (single or batch) with the key in the `api_key` query
 * parameter. Errors are `error` members with HTTP 200, as on a Solana node; a missing or wrong key
 * gets HTTP 401 with a JSON-RPC error body. Injected faults answer with an error in a 200 or hold
 * the request until the client gives up (a timeout), before or after the method ran.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { Logger } from '../../core/index.js';
import type { FaultPlan } from '../ledger/faults.js';
import { listen, readBody, sendJson, type RunningServer } from './http-util.js';
import { RPC_INTERNAL_ERROR, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, RPC_PARSE_ERROR, RpcError } from './rpc-error.js';
import type { RpcMethod } from './rpc-methods.js';

export interface RpcServerOptions {
  readonly host: string;
  readonly port?: number;
  readonly apiKey: string;
  readonly methods: Readonly<Record<string, RpcMethod>>;
  readonly faults?: FaultPlan;
  /** Wall-clock ms a timed-out request is held before its socket is destroyed (30 s). */
  readonly timeoutHoldMs?: number;
  readonly log?: Logger;
}

type Reply = { jsonrpc: '2.0'; id: unknown; result: unknown } | { jsonrpc: '2.0'; id: unknown; error: unknown };

/** Marker for a request whose answer is withheld (timeout fault). */
const HANG = Symbol('hang');

function sameKey(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Starts the JSON-RPC server on an ephemeral port unless told. The URL it serves includes no key. */
export async function startRpcServer(options: RpcServerOptions): Promise<RunningServer> {
  const one = (request: unknown): Reply | typeof HANG => {
    const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks a parsed JSON-RPC request at runtime
    const id = r && typeof r === 'object' && 'id' in r ? r.id : null;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks a parsed JSON-RPC request at runtime
    if (!r || typeof r !== 'object' || r.jsonrpc !== '2.0' || typeof r.method !== 'string') {
      return { jsonrpc: '2.0', id, error: new RpcError(RPC_INVALID_REQUEST, 'Invalid request').toJSON() };
    }
    const method = options.methods[r.method];
    if (!method) return { jsonrpc: '2.0', id, error: new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found').toJSON() };
    const params = r.params === undefined ? [] : r.params;
    if (!Array.isArray(params)) return { jsonrpc: '2.0', id, error: new RpcError(-32602, 'Invalid params: params must be an array').toJSON() };
    const fault = options.faults?.nextRpc(r.method);
    const faulted = (): Reply | typeof HANG =>
      fault?.kind === 'timeout' ? HANG : { jsonrpc: '2.0', id, error: { code: RPC_INTERNAL_ERROR, message: 'Internal error' } };
    if (fault && !fault.afterHandling) return faulted();
    let reply: Reply;
    try {
      reply = { jsonrpc: '2.0', id, result: method(params) };
    } catch (e) {
      if (e instanceof RpcError) reply = { jsonrpc: '2.0', id, error: e.toJSON() };
      else {
        options.log?.error({ err: e, method: r.method }, 'rpc method failed');
        reply = { jsonrpc: '2.0', id, error: { code: RPC_INTERNAL_ERROR, message: 'Internal error' } };
      }
    }
    return fault ? faulted() : reply;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!sameKey(url.searchParams.get('api_key'), options.apiKey)) {
      sendJson(res, 401, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'missing or invalid api_key query parameter' } });
      return;
    }
    if (req.method !== 'POST') {
      sendJson(res, 405, { jsonrpc: '2.0', id: null, error: { code: RPC_INVALID_REQUEST, message: 'use POST' } });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      sendJson(res, 200, { jsonrpc: '2.0', id: null, error: new RpcError(RPC_PARSE_ERROR, 'Parse error').toJSON() });
      return;
    }
    const replies = Array.isArray(body) ? body.map(one) : [one(body)];
    if (replies.includes(HANG)) {
      // Hold the answer until the client gives up, the hold ends or the server stops.
      const hold = setTimeout(() => req.socket.destroy(), options.timeoutHoldMs ?? 30_000);
      hold.unref();
      req.socket.once('close', () => clearTimeout(hold));
      return;
    }
    sendJson(res, 200, Array.isArray(body) ? replies : replies[0]);
  };

  return listen(
    options.host,
    options.port ?? 0,
    (req, res) => {
      handle(req, res).catch((e: unknown) => {
        options.log?.error({ err: e }, 'rpc request failed');
        if (!res.headersSent) sendJson(res, 500, { jsonrpc: '2.0', id: null, error: { code: RPC_INTERNAL_ERROR, message: 'Internal error' } });
      });
    },
    'JSON-RPC server',
  );
}
