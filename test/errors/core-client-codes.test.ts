import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { decimal, isChainpilotError, toRaw } from '../../src/core/index.js';
import { createHttpClient, type HttpClient } from '../../src/client/http/http-client.js';
import { createDatastreamClient } from '../../src/client/datastream/index.js';
import { thrown } from '../helpers/thrown.js';

describe('core decimal codes', () => {
  it('rejects a value that is not a finite decimal with CORE_INVALID_DECIMAL naming the field', () => {
    const e = thrown(() => decimal('12abc', 'price'));
    expect(isChainpilotError(e, 'CORE_INVALID_DECIMAL')).toBe(true);
    expect((e as Error).message).toContain('price');
    expect(
      isChainpilotError(
        thrown(() => decimal(Number.POSITIVE_INFINITY)),
        'CORE_INVALID_DECIMAL',
      ),
    ).toBe(true);
  });

  it('rejects more fractional digits than the token has with CORE_INVALID_DECIMAL, unless told to round', () => {
    expect(
      isChainpilotError(
        thrown(() => toRaw('1.234', 2)),
        'CORE_INVALID_DECIMAL',
      ),
    ).toBe(true);
    expect(toRaw('1.234', 2, 'down')).toBe(123n);
  });
});

describe('HTTP client codes', () => {
  let server: Server | undefined;
  let client: HttpClient | undefined;
  afterEach(async () => {
    await client?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('refuses a base URL that is not absolute http(s), or a non-positive timeout, with HTTP_INVALID_OPTIONS', () => {
    expect(
      isChainpilotError(
        thrown(() => createHttpClient({ baseUrl: 'api.example/v1', service: 'data-api' })),
        'HTTP_INVALID_OPTIONS',
      ),
    ).toBe(true);
    expect(
      isChainpilotError(
        thrown(() => createHttpClient({ baseUrl: 'ftp://127.0.0.1/', service: 'data-api' })),
        'HTTP_INVALID_OPTIONS',
      ),
    ).toBe(true);
    const e = thrown(() => createHttpClient({ baseUrl: 'http://127.0.0.1:1', service: 'data-api', timeoutMs: 0 }));
    expect(isChainpilotError(e, 'HTTP_INVALID_OPTIONS')).toBe(true);
    expect((e as Error).message).toContain('timeoutMs');
  });

  it('maps a 408 from a real server to HTTP_REQUEST_TIMEOUT: a read may retry, a write outcome is unknown and is sent once', async () => {
    let hits = 0;
    server = createServer((_req, res) => {
      hits++;
      res.writeHead(408, { 'content-type': 'application/json' }).end('{"error":"request timeout"}');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    client = createHttpClient({ baseUrl: `http://127.0.0.1:${port}`, service: 'swap', retry: { maxAttempts: 1 } });

    const write = await client.request({ method: 'POST', path: '/swap', body: {}, kind: 'write' }).catch((e: unknown) => e);
    expect(isChainpilotError(write, 'HTTP_REQUEST_TIMEOUT')).toBe(true);
    expect(write).toMatchObject({ retry: 'unknown_outcome' });
    expect(hits).toBe(1);

    const read = await client.request({ method: 'GET', path: '/tokens', kind: 'read' }).catch((e: unknown) => e);
    expect(isChainpilotError(read, 'HTTP_REQUEST_TIMEOUT')).toBe(true);
    expect(read).toMatchObject({ retry: 'retryable' });
  });
});

describe('Datastream client option codes', () => {
  it.each([
    ['url', { url: 'https://datastream.example', apiKey: 'key' }],
    ['apiKey', { url: 'wss://datastream.example', apiKey: 'has space' }],
    ['backoffCapMs', { url: 'wss://datastream.example', apiKey: 'key', backoffBaseMs: 5_000, backoffCapMs: 1_000 }],
  ])('refuses a bad %s with STREAM_INVALID_OPTIONS naming the field', (field, options) => {
    const e = thrown(() => createDatastreamClient(options));
    expect(isChainpilotError(e, 'STREAM_INVALID_OPTIONS')).toBe(true);
    expect(e).toMatchObject({ context: { field } });
  });
});
