/**
 * The client's observer port on real sockets: each call is reported once with its outcome, each
 * retry with the status that caused it, JSON-RPC calls under their method (an RPC error inside
 * HTTP 200 is an error), and an observer that throws never breaks a request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, createRpcClient, readDataApiError, type HttpTelemetry } from '../../src/client/index.js';
import { seededRandom } from '../../src/core/index.js';
import { startRpcServer } from './helpers/rpc-server.js';
import { jumpClock, sendJson, startServer, type TestServer } from './helpers/test-server.js';
import { caught } from './helpers/caught.js';

interface Seen {
  readonly requests: { api: string; method: string; seconds: number; outcome: string }[];
  readonly retries: { api: string; status: number | undefined }[];
  readonly telemetry: HttpTelemetry;
}

function recorder(): Seen {
  const requests: Seen['requests'] = [];
  const retries: Seen['retries'] = [];
  return {
    requests,
    retries,
    telemetry: {
      request: (api, method, seconds, outcome) => void requests.push({ api, method, seconds, outcome }),
      retry: (api, status) => void retries.push({ api, status }),
    },
  };
}

let server: TestServer | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  await server?.close();
  server = undefined;
});

describe('client telemetry', () => {
  it('reports a read retried after a 429 and a 503 once, as ok, with both retries and their statuses', async () => {
    server = await startServer((_r, res, i) =>
      i === 0 ? sendJson(res, 429, {}, { 'retry-after': '0' }) : i === 1 ? sendJson(res, 503, {}) : sendJson(res, 200, { ok: true }),
    );
    const seen = recorder();
    const http = createHttpClient({
      baseUrl: server.url,
      service: 'data-api',
      clock: jumpClock(),
      random: seededRandom(1),
      errorBody: readDataApiError,
      telemetry: seen.telemetry,
    });
    closers.push(() => http.close());
    expect(await http.json({ method: 'GET', path: '/tokens/x', kind: 'read' })).toEqual({ ok: true });
    expect(seen.retries).toEqual([
      { api: 'data-api', status: 429 },
      { api: 'data-api', status: 503 },
    ]);
    expect(seen.requests).toHaveLength(1);
    expect(seen.requests[0]).toMatchObject({ api: 'data-api', method: 'GET', outcome: 'ok' });
    expect(seen.requests[0]?.seconds).toBeGreaterThan(0);
  });

  it('reports a write answered 429 as HTTP_RATE_LIMITED without a retry', async () => {
    server = await startServer((_r, res) => sendJson(res, 429, {}));
    const seen = recorder();
    const http = createHttpClient({ baseUrl: server.url, service: 'swap', clock: jumpClock(), telemetry: seen.telemetry });
    closers.push(() => http.close());
    const e = await caught(http.json({ method: 'POST', path: '/swap', body: {}, kind: 'write' }));
    expect(e.code).toBe('HTTP_RATE_LIMITED');
    expect(server.requests).toHaveLength(1);
    expect(seen.retries).toEqual([]);
    expect(seen.requests).toEqual([expect.objectContaining({ api: 'swap', method: 'POST', outcome: 'HTTP_RATE_LIMITED' })]);
  });

  it('reports JSON-RPC calls under their method, an RPC error in HTTP 200 as RPC_ERROR, and a batch as batch', async () => {
    const rpcServer = await startRpcServer({
      getSlot: () => ({ result: 42 }),
      getBalance: () => ({ error: { code: -32602, message: 'Invalid param' } }),
    });
    server = rpcServer;
    const seen = recorder();
    const rpc = createRpcClient({ url: rpcServer.url, clock: jumpClock(), telemetry: seen.telemetry });
    closers.push(() => rpc.close());
    expect(await rpc.getSlot()).toBe(42);
    expect((await caught(rpc.getBalance('11111111111111111111111111111111'))).code).toBe('RPC_ERROR');
    await rpc.batch([{ method: 'getSlot', params: [] }]);
    expect(seen.requests.map((r) => [r.api, r.method, r.outcome])).toEqual([
      ['rpc', 'getSlot', 'ok'],
      ['rpc', 'getBalance', 'RPC_ERROR'],
      ['rpc', 'batch', 'ok'],
    ]);
    expect(seen.retries).toEqual([]);
  });

  it('keeps a request working when the observer throws', async () => {
    server = await startServer((_r, res, i) => (i === 0 ? sendJson(res, 500, {}) : sendJson(res, 200, { ok: 1 })));
    const throwing: HttpTelemetry = {
      request: () => {
        throw new Error('observer broke');
      },
      retry: () => {
        throw new Error('observer broke');
      },
    };
    const http = createHttpClient({ baseUrl: server.url, service: 'prediction', clock: jumpClock(), random: seededRandom(2), telemetry: throwing });
    closers.push(() => http.close());
    expect(await http.json({ method: 'GET', path: '/v1/markets', kind: 'read' })).toEqual({ ok: 1 });
    expect(server.requests).toHaveLength(2);
  });
});
