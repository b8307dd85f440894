/**
 * Bounds on REST, JSON-RPC and swap response bodies (issue 29: a 200,000-deep object reached the
 * strategy through `ctx.data`). Every client sits on the one HTTP client, which applies the same
 * limits table as the Datastream (`WIRE_LIMITS`): a body nested deeper than 64 levels, or larger
 * than maxResponseBytes, is refused with a coded error before anything reads it. Real sockets on
 * 127.0.0.1; fuzzed depth and shape.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/client/data-api/index.js';
import { createHttpClient } from '../../src/client/http/index.js';
import { createPredictionClient } from '../../src/client/prediction/index.js';
import { createRpcClient } from '../../src/client/rpc/index.js';
import { createSwapClient } from '../../src/client/swap/index.js';
import { WIRE_LIMITS } from '../../src/client/wire-limits.js';
import { DATASTREAM_DEFAULTS } from '../../src/client/datastream/options.js';
import { seededRandom } from '../../src/core/index.js';
import { fuzzParams, FUZZ_TIMEOUT_MS } from '../helpers/fuzz.js';
import { caught } from './helpers/caught.js';
import { jumpClock, sendText, startServer, type TestServer } from './helpers/test-server.js';

/** `levels` containers deep, as text, with the innermost value `inner`. */
const nested = (levels: number, inner = '1', arrays = false): string =>
  arrays ? `${'['.repeat(levels)}${inner}${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;

let server: TestServer;
/** What the next request is answered with. */
let reply = { status: 200, text: '{}' };

beforeAll(async () => {
  server = await startServer((_req, res) => sendText(res, reply.status, reply.text, 'application/json'));
});
afterAll(async () => {
  await server.close();
});

describe('REST body bounds (the limits table the Datastream uses)', () => {
  it('is one table: the Datastream and the HTTP client default to the same depth limit, 64', () => {
    expect(WIRE_LIMITS.maxJsonDepth).toBe(64);
    expect(DATASTREAM_DEFAULTS.maxFrameDepth).toBe(WIRE_LIMITS.maxJsonDepth);
    expect(DATASTREAM_DEFAULTS.maxFrameBytes).toBe(WIRE_LIMITS.maxFrameBytes);
  });

  it('accepts a body exactly 64 levels deep and refuses 65 with HTTP_BODY_TOO_DEEP, not retried', async () => {
    const http = createHttpClient({ baseUrl: server.url, service: 'data-api', clock: jumpClock(), random: seededRandom(1) });
    reply = { status: 200, text: nested(64) };
    await expect(http.json({ method: 'GET', path: '/x', kind: 'read' })).resolves.toBeTypeOf('object');
    reply = { status: 200, text: nested(65, '1', true) };
    const n = server.requests.length;
    const e = await caught(http.json({ method: 'GET', path: '/x', kind: 'read' }));
    expect(e.code).toBe('HTTP_BODY_TOO_DEEP');
    expect(e.retry).toBe('not_retryable');
    expect(e.context).toMatchObject({ maxJsonDepth: 64, attempts: 1 });
    expect(server.requests.length - n).toBe(1);
    await http.close();
  });

  it('every client refuses a 200,000-deep body with HTTP_BODY_TOO_DEEP: data API, prediction, JSON-RPC, swap', async () => {
    const deep = nested(200_000);
    const clock = jumpClock();
    const api = createDataApiClient({ baseUrl: server.url, apiKey: 'k-data-1234', clock, random: seededRandom(2) });
    const pm = createPredictionClient({ baseUrl: server.url, apiKey: 'k-pm-1234', clock, random: seededRandom(3) });
    const rpc = createRpcClient({ url: server.url, clock, random: seededRandom(4) });
    const swap = createSwapClient({ url: server.url, clock });
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['data-api', () => api.getToken('M1')],
      ['prediction', () => pm.getEvents({ limit: 1 })],
      ['rpc', () => rpc.getSlot()],
      [
        'swap',
        () =>
          swap.buildSwap({
            wallet: '11111111111111111111111111111111',
            from: 'So11111111111111111111111111111111111111112',
            to: '11111111111111111111111111111112',
            amount: '0.001',
            slippagePct: 1,
            priorityFeeSol: '0.0001',
          }),
      ],
    ];
    for (const [name, call] of calls) {
      // an RPC reply wraps the deep value the way a hostile node would
      reply = { status: 200, text: name === 'rpc' ? `{"jsonrpc":"2.0","id":1,"result":${deep}}` : deep };
      const e = await caught(call());
      expect([name, e.code]).toEqual([name, 'HTTP_BODY_TOO_DEEP']);
    }
    await Promise.all([api.close(), pm.close(), rpc.close(), swap.close()]);
  });

  it('an error body too deep to read is treated as no body: the status decides', async () => {
    const http = createHttpClient({ baseUrl: server.url, service: 'data-api', clock: jumpClock(), random: seededRandom(5), retry: { maxAttempts: 1 } });
    reply = { status: 404, text: `{"error":${nested(5_000)}}` };
    const e = await caught(http.json({ method: 'GET', path: '/x', kind: 'read' }));
    expect(e.code).toBe('HTTP_CLIENT_ERROR');
    expect(e.context['apiMessage']).toBeUndefined();
    await http.close();
  });

  it(
    'any JSON body of any depth is delivered when it nests at most 64 levels and refused with HTTP_BODY_TOO_DEEP when it nests more',
    async () => {
      const http = createHttpClient({ baseUrl: server.url, service: 'data-api', clock: jumpClock(), random: seededRandom(6), retry: { maxAttempts: 1 } });
      const depthOf = (v: unknown): number =>
        typeof v === 'object' && v !== null ? 1 + Math.max(0, ...Object.values(v as Record<string, unknown>).map(depthOf)) : 0;
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 200 }),
          fc.jsonValue({ maxDepth: 3 }),
          fc.boolean(),
          fc.string({ unit: fc.constantFrom('{', '[', '}', ']', '"', 'a'), maxLength: 20 }),
          async (levels, inner, arrays, noise) => {
            // brackets inside strings must not count
            const text = nested(levels, JSON.stringify({ noise, inner }), arrays);
            const depth = depthOf(JSON.parse(text));
            reply = { status: 200, text };
            if (depth <= WIRE_LIMITS.maxJsonDepth) {
              expect(await http.json({ method: 'GET', path: '/f', kind: 'read' })).toEqual(JSON.parse(text));
            } else {
              expect((await caught(http.json({ method: 'GET', path: '/f', kind: 'read' }))).code).toBe('HTTP_BODY_TOO_DEEP');
            }
          },
        ),
        fuzzParams({ numRuns: 120, seed: 2902 }),
      );
      await http.close();
    },
    FUZZ_TIMEOUT_MS,
  );

  it('a body over maxResponseBytes is refused with HTTP_INVALID_BODY whatever its declared length', async () => {
    const http = createHttpClient({ baseUrl: server.url, service: 'swap', maxResponseBytes: 1_024, retry: { maxAttempts: 1 } });
    reply = { status: 200, text: `{"pad":"${'x'.repeat(4_000)}"}` };
    const e = await caught(http.json({ method: 'GET', path: '/big', kind: 'read' }));
    expect(e.code).toBe('HTTP_INVALID_BODY');
    expect(e.context).toMatchObject({ maxResponseBytes: 1_024 });
    await http.close();
  });
});
