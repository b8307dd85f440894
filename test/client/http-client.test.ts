import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient, readDataApiError, type HttpClient, type HttpClientOptions } from '../../src/client/http/index.js';
import { seededRandom } from '../../src/core/index.js';
import { jumpClock, sendJson, sendText, startServer, type Handler, type TestServer } from './helpers/test-server.js';
import { caught } from './helpers/caught.js';

let server: TestServer | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Handler, opts: Partial<HttpClientOptions> = {}) {
  server = await startServer(handler);
  const clock = jumpClock();
  client = createHttpClient({
    baseUrl: server.url,
    service: 'data-api',
    auth: { kind: 'header', name: 'x-api-key', value: 'test-key-123' },
    clock,
    random: seededRandom(1),
    errorBody: readDataApiError,
    retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000 },
    ...opts,
  });
  return { server, client, clock };
}

describe('http client', () => {
  it('sends the key header, encodes the query and reuses one keep-alive socket', async () => {
    const { server, client } = await setup((_r, res) => sendJson(res, 200, { ok: true }));
    expect(
      await client.json({ method: 'GET', path: '/tokens/abc', query: { limit: 5, markets: ['venue_a', 'venue_c'], skip: undefined }, kind: 'read' }),
    ).toEqual({ ok: true });
    for (let i = 0; i < 5; i++) await client.json({ method: 'GET', path: '/x', kind: 'read' });
    const [a] = server.requests;
    expect(a?.headers['x-api-key']).toBe('test-key-123');
    expect(a?.query.get('limit')).toBe('5');
    expect(a?.query.get('markets')).toBe('venue_a,venue_c');
    expect(a?.query.has('skip')).toBe(false);
    // Without keep-alive every request would open its own socket.
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
  });

  it('puts a query-parameter key on the URL and keeps a base path prefix', async () => {
    server = await startServer((_r, res) => sendJson(res, 200, []));
    client = createHttpClient({ baseUrl: `${server.url}/prefix/`, service: 'rpc', auth: { kind: 'query', name: 'api_key', value: 'rpc-key-999' } });
    await client.json({ method: 'POST', path: '/', body: { a: 1 }, kind: 'read' });
    expect(server.requests[0]?.path).toBe('/prefix/');
    expect(server.requests[0]?.query.get('api_key')).toBe('rpc-key-999');
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(server.requests[0]?.body).toBe('{"a":1}');
  });

  it('retries a 429 after the Retry-After seconds, then succeeds', async () => {
    const { server, client, clock } = await setup((_r, res, i) =>
      i === 0 ? sendJson(res, 429, { error: { code: 'RATE', message: 'slow down' } }, { 'retry-after': '3' }) : sendJson(res, 200, { n: i }),
    );
    expect(await client.json({ method: 'GET', path: '/p', kind: 'read' })).toEqual({ n: 1 });
    expect(server.requests).toHaveLength(2);
    expect(clock.delays).toEqual([3000]);
  });

  it('honours a Retry-After HTTP date relative to the injected clock', async () => {
    const clock = jumpClock(Date.parse('2026-01-01T00:00:00Z'));
    const { server, client } = await setup(
      (_r, res, i) => (i === 0 ? sendJson(res, 429, {}, { 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }) : sendJson(res, 200, {})),
      { clock },
    );
    await client.json({ method: 'GET', path: '/p', kind: 'read' });
    expect(server.requests).toHaveLength(2);
    expect(clock.delays).toEqual([7000]);
  });

  it('backs off with capped, jittered, growing ceilings on 429 without Retry-After and gives up after the budget', async () => {
    const { server, client, clock } = await setup((_r, res) => sendJson(res, 429, { error: { code: 'RATE', message: 'slow' } }));
    const e = await caught(client.json({ method: 'GET', path: '/p', kind: 'read' }));
    expect(e.code).toBe('HTTP_RATE_LIMITED');
    expect(e.retry).toBe('retryable');
    expect(e.context['status']).toBe(429);
    expect(e.context['attempts']).toBe(4);
    expect(e.context['apiCode']).toBe('RATE');
    expect(server.requests).toHaveLength(4);
    expect(clock.delays).toHaveLength(3);
    clock.delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(Math.min(1000, 100 * 2 ** i));
    });
  });

  it('draws jitter from the injected random source: same seed, same waits; other seed, other waits', async () => {
    const waits = async (seed: number): Promise<number[]> => {
      const s = await startServer((_r, res) => sendJson(res, 503, {}));
      const clock = jumpClock();
      const c = createHttpClient({
        baseUrl: s.url,
        service: 'x',
        clock,
        random: seededRandom(seed),
        retry: { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 100_000 },
      });
      await caught(c.json({ method: 'GET', path: '/p', kind: 'read' }));
      await c.close();
      await s.close();
      return clock.delays;
    };
    const a = await waits(42);
    expect(a).toHaveLength(4);
    expect(await waits(42)).toEqual(a);
    expect(await waits(43)).not.toEqual(a);
  });

  it('does not wait for a Retry-After beyond its cap and stops at the elapsed budget', async () => {
    const { server, client } = await setup((_r, res) => sendJson(res, 429, {}, { 'retry-after': '120' }));
    const e = await caught(client.json({ method: 'GET', path: '/p', kind: 'read' }));
    expect(e.code).toBe('HTTP_RATE_LIMITED');
    expect(e.context['retryAfterMs']).toBe(120_000);
    expect(server.requests).toHaveLength(1);

    await client.close();
    await server.close();
    const second = await setup((_r, res) => sendJson(res, 503, {}, { 'retry-after': '20' }), { retry: { maxAttempts: 10, maxElapsedMs: 45_000 } });
    const e2 = await caught(second.client.json({ method: 'GET', path: '/p', kind: 'read' }));
    expect(e2.code).toBe('HTTP_SERVER_ERROR');
    expect(second.server.requests).toHaveLength(3);
  });

  it('retries 5xx reads (HTML error pages included) and returns the later success', async () => {
    const { server, client } = await setup((_r, res, i) =>
      i === 0
        ? sendText(res, 502, '<html><body>Bad gateway</body></html>')
        : i === 1
          ? sendJson(res, 500, { error: { code: 'SERVER_ERROR', message: 'Internal server error' } })
          : sendJson(res, 200, [1, 2]),
    );
    expect(await client.json({ method: 'GET', path: '/p', kind: 'read' })).toEqual([1, 2]);
    expect(server.requests).toHaveLength(3);
  });

  it('never retries a permanent 4xx and keeps the status and the service error body', async () => {
    const { server, client } = await setup((_r, res) => sendJson(res, 400, { error: { code: 'INVALID_PARAM', message: 'limit must be <= 500' } }));
    const e = await caught(client.json({ method: 'GET', path: '/p', kind: 'read' }));
    expect(e.code).toBe('HTTP_CLIENT_ERROR');
    expect(e.retry).toBe('not_retryable');
    expect(e.context).toMatchObject({ status: 400, apiCode: 'INVALID_PARAM', apiMessage: 'limit must be <= 500', attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('maps 401 to an auth error and 408 to a retried request timeout', async () => {
    const a = await setup((_r, res) => sendJson(res, 401, { error: { code: 'UNAUTHORIZED', message: 'bad key' } }));
    expect((await caught(a.client.json({ method: 'GET', path: '/p', kind: 'read' }))).code).toBe('HTTP_AUTH_FAILED');
    await a.client.close();
    await a.server.close();
    const b = await setup((_r, res, i) => (i === 0 ? sendText(res, 408, '') : sendJson(res, 200, { ok: 1 })));
    expect(await b.client.json({ method: 'GET', path: '/dca/token/m', kind: 'read' })).toEqual({ ok: 1 });
    expect(b.server.requests).toHaveLength(2);
  });

  it('sends a write once and reports a 5xx on it as an unknown outcome', async () => {
    const { server, client } = await setup((_r, res) => sendJson(res, 503, {}));
    const e = await caught(client.json({ method: 'POST', path: '/swap', body: {}, kind: 'write' }));
    expect(e.code).toBe('HTTP_SERVER_ERROR');
    expect(e.retry).toBe('unknown_outcome');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a read whose connection is reset, and reports a reset write as an unknown outcome', async () => {
    const { server, client } = await setup((_r, res, i) => (i % 2 === 0 ? res.socket?.destroy() : sendJson(res, 200, { ok: true })));
    expect(await client.json({ method: 'GET', path: '/p', kind: 'read' })).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
    const e = await caught(client.json({ method: 'POST', path: '/w', body: {}, kind: 'write' }));
    expect(e.code).toBe('HTTP_NETWORK');
    expect(e.retry).toBe('unknown_outcome');
    expect(server.requests).toHaveLength(3);
  });

  it('times out a hung read, retries it, and times out a hung write without retrying', async () => {
    const { server, client } = await setup((_r, res, i) => (i === 1 ? sendJson(res, 200, { late: false }) : undefined), { timeoutMs: 300 });
    expect(await client.json({ method: 'GET', path: '/p', kind: 'read' })).toEqual({ late: false });
    const e = await caught(client.json({ method: 'POST', path: '/w', body: {}, kind: 'write' }));
    expect(e.code).toBe('HTTP_TIMEOUT');
    expect(e.retry).toBe('unknown_outcome');
    expect(e.context['timeoutMs']).toBe(300);
    expect(server.requests).toHaveLength(3);
  });

  it('rejects HTML, malformed and empty 200 bodies with a typed error, without retrying', async () => {
    const bodies = ['<!DOCTYPE html><html></html>', '{"a":', ''];
    const { server, client } = await setup((_r, res, i) => sendText(res, 200, bodies[i] ?? '', i === 0 ? 'text/html' : 'application/json'));
    for (const _ of bodies) {
      const e = await caught(client.json({ method: 'GET', path: '/p', kind: 'read' }));
      expect(e.code).toBe('HTTP_INVALID_BODY');
      expect(e.context['status']).toBe(200);
    }
    expect(server.requests).toHaveLength(3);
  });

  it('stops at once with CORE_ABORTED when the caller aborts', async () => {
    const { client } = await setup(() => undefined);
    const ac = new AbortController();
    const p = caught(client.json({ method: 'GET', path: '/p', kind: 'read', signal: ac.signal }));
    setTimeout(() => ac.abort(), 30);
    expect((await p).code).toBe('CORE_ABORTED');
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { server, client } = await setup((_r, res) => sendJson(res, 200, {}));
    const e = await caught(client.json({ method: 'GET', path: '/p', kind: 'read', signal: AbortSignal.abort() }));
    expect(e.code).toBe('CORE_ABORTED');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a response body beyond maxResponseBytes, declared or streamed', async () => {
    const big = JSON.stringify({ data: 'x'.repeat(5000) });
    const { client } = await setup(
      (_r, res, i) => {
        if (i === 0) return sendText(res, 200, big, 'application/json');
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no content-length
        res.write(big.slice(0, 3000));
        res.end(big.slice(3000));
      },
      { maxResponseBytes: 4096 },
    );
    for (let i = 0; i < 2; i++) {
      const e = await caught(client.json({ method: 'GET', path: '/p', kind: 'read' }));
      expect(e.code).toBe('HTTP_INVALID_BODY');
      expect(e.context['maxResponseBytes']).toBe(4096);
    }
  });

  it('rejects a base URL that is not absolute http(s) with a coded error', () => {
    expect(() => createHttpClient({ baseUrl: 'ftp://x', service: 's' })).toThrow(/http or https/);
    expect(() => createHttpClient({ baseUrl: 'nope', service: 's' })).toThrow(/absolute URL/);
  });
});
