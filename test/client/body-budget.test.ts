/**
 * One in-flight budget for response bodies across concurrent requests and clients (issue 38, case
 * 7: ten concurrent 200 MB look-ups drove the process to 543 MB while each body stayed under the
 * 64 MB per-response cap). A real server on 127.0.0.1 holds its answers open, so every body is in
 * flight at once; the test waits for the budget's own refusal before it lets them end.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createBodyBudget, createHttpClient, processBodyBudget, type HttpClient } from '../../src/client/http/index.js';
import { WIRE_LIMITS } from '../../src/client/wire-limits.js';
import { seededRandom, type ChainpilotError } from '../../src/core/index.js';
import { caught } from './helpers/caught.js';
import { jumpClock, startServer, type TestServer } from './helpers/test-server.js';

const MIB = 1024 * 1024;
/** A JSON body of `bytes` bytes in all. */
const bodyOf = (bytes: number): string => `{"pad":"${'x'.repeat(bytes - 10)}"}`;

async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

let server: TestServer | undefined;
const clients: HttpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server?.close();
  server = undefined;
});

describe('the in-flight budget of response bodies', () => {
  it('keeps the bodies read at once by concurrent look-ups of two clients under one budget: the request that would pass it fails with HTTP_BODY_BUDGET, the others get their whole bodies', async () => {
    const held: ServerResponse[] = [];
    const body = bodyOf(3 * MIB);
    // no Content-Length: each body streams in, its first 3 MiB sent at once and its end held back
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(body.slice(0, -2));
      held.push(res);
    });
    const budget = createBodyBudget(8 * MIB);
    const make = (service: string): HttpClient => {
      const c = createHttpClient({
        baseUrl: server!.url,
        service,
        bodyBudget: budget,
        maxResponseBytes: 4 * MIB, // each body fits the per-response cap: only their sum is too much
        retry: { maxAttempts: 1 },
        clock: jumpClock(),
        random: seededRandom(38),
      });
      clients.push(c);
      return c;
    };
    const [a, b] = [make('data-api'), make('prediction')];
    const outcomes = [a, b, a].map((c, i) =>
      c.json({ method: 'GET', path: `/tokens/${i}`, kind: 'read' }).then(
        (v) => ({ ok: true as const, v }),
        (e: unknown) => ({ ok: false as const, e: e as ChainpilotError }),
      ),
    );
    // 9 MiB arriving against 8: the budget refuses one body before any can end
    await until('the budget to refuse a body', () => budget.refused() > 0 && held.length === 3);
    for (const res of held) res.end(body.slice(-2));
    const settled = await Promise.all(outcomes);
    const failed = settled.flatMap((s) => (s.ok ? [] : [s.e]));
    const done = settled.flatMap((s) => (s.ok ? [s.v] : []));
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const v of done) expect((v as { pad: string }).pad).toHaveLength(3 * MIB - 10);
    for (const e of failed) {
      expect(e.code).toBe('HTTP_BODY_BUDGET');
      expect(e.retry).toBe('retryable');
      expect(e.message).toMatch(/would pass the in-flight budget of 8388608 bytes .*; fewer concurrent look-ups, narrower queries, or retry later/);
      expect(e.context).toMatchObject({ budgetBytes: 8 * MIB, status: 200 });
    }
    expect(budget.peakBytes()).toBeLessThanOrEqual(8 * MIB);
    expect(budget.peakBytes()).toBeGreaterThan(6 * MIB);
    expect(budget.inUseBytes()).toBe(0);
  }, 60_000);

  it('refuses a body whose declared Content-Length does not fit what is left of the budget before reading any of it, and frees the budget for the next request', async () => {
    const body = bodyOf(5 * MIB);
    let hold: ServerResponse | undefined;
    server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      // the first answer's body is held back, so its lease is in force while the second asks
      if (req.path === '/first') {
        res.write(body.slice(0, MIB));
        hold = res;
      } else res.end(body);
    });
    const budget = createBodyBudget(8 * MIB);
    const http = createHttpClient({ baseUrl: server.url, service: 'swap', bodyBudget: budget, retry: { maxAttempts: 1 } });
    clients.push(http);
    const first = http.json({ method: 'GET', path: '/first', kind: 'read' });
    await until('the first body to be leased', () => budget.inUseBytes() === Buffer.byteLength(body));
    const e = await caught(http.json({ method: 'GET', path: '/second', kind: 'read' }));
    expect(e.code).toBe('HTTP_BODY_BUDGET');
    expect(e.message).toContain('dropped after 0 bytes');
    hold!.end(body.slice(MIB));
    expect(((await first) as { pad: string }).pad).toHaveLength(5 * MIB - 10);
    expect(budget.inUseBytes()).toBe(0);
    expect(((await http.json({ method: 'GET', path: '/second', kind: 'read' })) as { pad: string }).pad).toHaveLength(5 * MIB - 10);
  }, 60_000);

  it('is the process budget by default: every client leases from the one WIRE_LIMITS.maxInFlightResponseBytes budget', async () => {
    const body = bodyOf(MIB);
    let hold: ServerResponse | undefined;
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.write(body.slice(0, 10));
      hold = res;
    });
    const shared = processBodyBudget();
    expect(shared.limitBytes).toBe(WIRE_LIMITS.maxInFlightResponseBytes);
    const before = shared.inUseBytes();
    const http = createHttpClient({ baseUrl: server.url, service: 'rpc', retry: { maxAttempts: 1 } });
    clients.push(http);
    const pending = http.json({ method: 'GET', path: '/held', kind: 'read' });
    await until('the body to be leased from the process budget', () => shared.inUseBytes() === before + Buffer.byteLength(body));
    hold!.end(body.slice(10));
    await pending;
    expect(shared.inUseBytes()).toBe(before);
  }, 60_000);

  it('refuses a budget that is not a positive integer, naming the field', () => {
    expect(() => createBodyBudget(0)).toThrow(/bodyBudget: limitBytes must be a positive integer/);
  });
});
