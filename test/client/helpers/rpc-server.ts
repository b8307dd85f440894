/** A JSON-RPC 2.0 server on a real socket: each method answers from a handler table. */
import type { ServerResponse } from 'node:http';
import { sendJson, startServer, type RecordedRequest, type TestServer } from './test-server.js';

export interface RpcCall {
  readonly method: string;
  readonly params: unknown[];
  readonly id: unknown;
}

/** Returns `{result}` or `{error}`; return `raw` to send an arbitrary reply (or nothing to hang). */
export type RpcHandler = (params: unknown[], call: RpcCall, res: ServerResponse) => { result: unknown } | { error: unknown } | { raw: true } | undefined;

export interface RpcServer extends TestServer {
  readonly calls: RpcCall[];
}

export async function startRpcServer(methods: Record<string, RpcHandler>): Promise<RpcServer> {
  const calls: RpcCall[] = [];
  const server = await startServer((req: RecordedRequest, res) => {
    const parsed = JSON.parse(req.body) as unknown;
    if (Array.isArray(parsed)) {
      // A batch: answer every call, in reverse order, so clients must match answers by id.
      const answers = (parsed as { method: string; params: unknown[]; id: unknown }[]).map((b) => {
        const call = { method: b.method, params: b.params, id: b.id };
        calls.push(call);
        const out = methods[b.method]?.(b.params, call, res) ?? { error: { code: -32601, message: 'Method not found' } };
        return { jsonrpc: '2.0', id: b.id, ...out };
      });
      sendJson(res, 200, answers.reverse());
      return;
    }
    const body = parsed as { method: string; params: unknown[]; id: unknown };
    const call = { method: body.method, params: body.params, id: body.id };
    calls.push(call);
    const h = methods[body.method];
    if (!h) {
      sendJson(res, 200, { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } });
      return;
    }
    const out = h(body.params, call, res);
    if (!out || 'raw' in out) return;
    sendJson(res, 200, { jsonrpc: '2.0', id: body.id, ...out });
  });
  return Object.assign(server, { calls });
}
