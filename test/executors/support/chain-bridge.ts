/**
 * Serves a fake chain and fake swap service over HTTP on 127.0.0.1, so a child process (which the
 * crash test kills) trades against a chain that outlives it. Bigints travel tagged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VersionedTransaction } from '@solana/web3.js';
import { ChainpilotError } from '../../../src/core/errors.js';
import type { ErrorCode } from '../../../src/core/error-codes.js';
import type { BuiltSwap, LiveRpcPort, SwapBuilderPort, SwapRequest } from '../../../src/executors/live/ports.js';

const METHODS = [
  'sendTransaction',
  'getSignatureStatuses',
  'getBlockHeight',
  'simulateTransaction',
  'getTransaction',
  'getMultipleAccounts',
  'buildSwap',
] as const;
type Method = (typeof METHODS)[number];

const replacer = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? { $n: v.toString() } : v);
const reviver = (_k: string, v: unknown): unknown =>
  v !== null && typeof v === 'object' && '$n' in v && typeof (v as { $n: unknown }).$n === 'string' ? BigInt((v as { $n: string }).$n) : v;

/** Starts the bridge on an ephemeral port; resolves with its URL and server. */
export async function serveChain(rpc: LiveRpcPort, swap: SwapBuilderPort): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      void (async () => {
        let out: unknown;
        try {
          const { method, params } = JSON.parse(body, reviver) as { method: Method; params: unknown[] };
          if (!METHODS.includes(method)) throw new Error(`unknown method ${method}`);
          if (method === 'buildSwap') {
            const built = await swap.buildSwap(params[0] as SwapRequest);
            out = { result: { base64: built.base64 } };
          } else {
            const fn = rpc[method] as (...a: unknown[]) => Promise<unknown>;
            out = { result: await fn(...params) };
          }
        } catch (e) {
          const c = e instanceof ChainpilotError ? e : undefined;
          out = { error: { code: c?.code ?? 'HTTP_TIMEOUT', message: e instanceof Error ? e.message : String(e), retry: c?.retry ?? 'retryable' } };
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out, replacer));
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** The child side: ports that call the bridge. */
export function chainClient(url: string): LiveRpcPort & SwapBuilderPort {
  const call = async (method: Method, params: unknown[]): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', body: JSON.stringify({ method, params }, replacer), headers: { 'content-type': 'application/json' } });
    } catch (e) {
      throw new ChainpilotError('HTTP_TIMEOUT', `bridge unreachable: ${String(e)}`, { retry: method === 'sendTransaction' ? 'unknown_outcome' : 'retryable' });
    }
    const body = JSON.parse(await res.text(), reviver) as { result?: unknown; error?: { code: ErrorCode; message: string; retry: 'retryable' } };
    if (body.error) throw new ChainpilotError(body.error.code, body.error.message, { retry: body.error.retry });
    return body.result;
  };
  const strip = (o: { signal?: AbortSignal } | undefined): unknown => {
    if (!o) return undefined;
    const { signal: _s, ...rest } = o;
    return rest;
  };
  return {
    sendTransaction: async (tx, o) => (await call('sendTransaction', [tx, strip(o)])) as string,
    getSignatureStatuses: async (s, o) => (await call('getSignatureStatuses', [s, strip(o)])) as Awaited<ReturnType<LiveRpcPort['getSignatureStatuses']>>,
    getBlockHeight: async (o) => (await call('getBlockHeight', [strip(o)])) as number,
    simulateTransaction: async (tx, o) => (await call('simulateTransaction', [tx, strip(o)])) as Awaited<ReturnType<LiveRpcPort['simulateTransaction']>>,
    getTransaction: async (s, o) => (await call('getTransaction', [s, strip(o)])) as Awaited<ReturnType<LiveRpcPort['getTransaction']>>,
    getMultipleAccounts: async (a, o) => (await call('getMultipleAccounts', [a, strip(o)])) as Awaited<ReturnType<LiveRpcPort['getMultipleAccounts']>>,
    buildSwap: async (req): Promise<BuiltSwap> => {
      const { base64 } = (await call('buildSwap', [req])) as { base64: string };
      const raw = Buffer.from(base64, 'base64');
      return { transaction: VersionedTransaction.deserialize(raw), raw, base64 };
    },
  };
}
