import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createServiceClients } from '../../src/client/index.js';
import { createLogger, createRedactor, seededRandom, WRAPPED_SOL_MINT_FOR_TEST } from './helpers/redaction-fixtures.js';
import { jumpClock, sendJson, sendText, startServer } from './helpers/test-server.js';

const DATA_KEY = 'datakey-7f3a9c2e1b';
const RPC_KEY = 'rpckey-55d0e8a4c9';
const SWAP_KEY = 'swapkey-0a1b2c3d4e';

describe('key redaction', () => {
  it('never lets a key reach a log line or anything thrown, whatever the failure', async () => {
    // Every answer echoes the keys back, the way a careless proxy or error page might.
    const echo = `${DATA_KEY} ${RPC_KEY} ${SWAP_KEY}`;
    const server = await startServer((r, res) => {
      if (r.path.startsWith('/rpc')) {
        const method = (JSON.parse(r.body) as { method: string }).method;
        if (method === 'getSlot')
          return sendJson(res, 200, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: `bad key ${echo}`, data: { url: r.url } } });
        if (method === 'sendTransaction') return sendText(res, 502, `<html>${r.url} ${echo}</html>`);
        return undefined; // hang until the timeout
      }
      if (r.path === '/swap') return sendJson(res, 400, { error: { code: 'BAD', message: `rejected for ${echo}` } });
      if (r.path.startsWith('/v1')) return sendJson(res, 401, { code: 401, error: `invalid key ${echo}`, errorCode: 'UNAUTHORIZED' });
      if (r.path === '/tokens/latest') return sendJson(res, 500, { error: { code: 'SERVER_ERROR', message: `Internal ${echo}` } }, { 'retry-after': '1' });
      return sendText(res, 200, `<!DOCTYPE html>${echo}`);
    });
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const redactor = createRedactor();
    const logger = createLogger({ redactor, destination: sink, level: 'debug' });
    const clients = createServiceClients({
      apiKey: DATA_KEY,
      dataApi: { url: server.url },
      prediction: { url: server.url },
      rpc: { url: `${server.url}/rpc`, apiKey: RPC_KEY, timeoutMs: 300 },
      swap: { url: server.url, apiKey: SWAP_KEY },
      retry: { maxAttempts: 3 },
      clock: jumpClock(),
      random: seededRandom(1),
      logger,
      redactor,
      timeoutMs: 1000,
    });
    const thrown: unknown[] = [];
    const attempt = async (p: Promise<unknown>): Promise<void> => {
      try {
        await p;
        thrown.push(new Error('expected a failure'));
      } catch (e) {
        thrown.push(e);
      }
    };
    await attempt(clients.dataApi.getLatestTokens());
    await attempt(clients.dataApi.getToken('M'));
    await attempt(clients.prediction.getEvents());
    await attempt(clients.rpc.getSlot());
    await attempt(clients.rpc.sendTransaction('AQAB'));
    await attempt(clients.rpc.getBlockHeight());
    await attempt(
      clients.swap.buildSwap({
        wallet: WRAPPED_SOL_MINT_FOR_TEST,
        from: WRAPPED_SOL_MINT_FOR_TEST,
        to: '11111111111111111111111111111111',
        amount: '1',
        slippagePct: 1,
        priorityFeeSol: '0',
      }),
    );
    await clients.close();
    await server.close();
    // A closed server: connection refused, with the key in the URL's query string.
    const dead = createServiceClients({ rpc: { url: server.url, apiKey: RPC_KEY }, retry: { maxAttempts: 2 }, clock: jumpClock(), logger, redactor });
    await attempt(dead.rpc.getSlot());
    await dead.close();

    expect(thrown).toHaveLength(8);
    const codes = thrown.map((e) => (e as { code?: string }).code);
    expect(codes).toEqual([
      'HTTP_SERVER_ERROR',
      'HTTP_INVALID_BODY',
      'HTTP_AUTH_FAILED',
      'RPC_ERROR',
      'HTTP_SERVER_ERROR',
      'HTTP_TIMEOUT',
      'HTTP_CLIENT_ERROR',
      'HTTP_NETWORK',
    ]);
    expect(lines.length).toBeGreaterThan(0);
    const everything = [
      ...lines,
      ...thrown.flatMap((e) => [
        String(e),
        JSON.stringify(e),
        inspect(e, { depth: Infinity, showHidden: true }),
        (e as Error).stack ?? '',
        JSON.stringify(Object.entries(e as object)),
      ]),
    ].join('\n');
    for (const key of [DATA_KEY, RPC_KEY, SWAP_KEY]) expect(everything).not.toContain(key);
    expect(everything).toContain('[REDACTED]');
  });
});
