import { describe, expect, it } from 'vitest';
import { createServiceClients } from '../../src/index.js';
import { sendJson, startServer } from './helpers/test-server.js';

describe('createServiceClients', () => {
  it('builds every configured client with the shared data key, the separate RPC key and one socket pool per origin', async () => {
    const server = await startServer((r, res) => {
      if (r.path === '/rpc') return sendJson(res, 200, { jsonrpc: '2.0', id: 1, result: 99 });
      if (r.path === '/v1/events') return sendJson(res, 200, { count: 0, data: [], hasMore: false });
      return sendJson(res, 200, { price: 1.25 });
    });
    const clients = createServiceClients({
      apiKey: 'shared-data-key',
      dataApi: { url: server.url },
      prediction: { url: server.url },
      rpc: { url: `${server.url}/rpc`, apiKey: 'rpc-only-key' },
      timeoutMs: 2000,
    });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await clients.dataApi.getPrice('M')).price).toBe(1.25);
        expect((await clients.prediction.getEvents()).hasMore).toBe(false);
        expect(await clients.rpc.getSlot()).toBe(99);
      }
      expect(clients.swap).toBeUndefined();
      const [data, pm, rpc] = server.requests;
      expect(data?.headers['x-api-key']).toBe('shared-data-key');
      expect(pm?.headers['x-api-key']).toBe('shared-data-key');
      expect(rpc?.headers['x-api-key']).toBeUndefined();
      expect(rpc?.query.get('api_key')).toBe('rpc-only-key');
      // Three clients on one origin share one keep-alive pool: far fewer sockets than requests.
      expect(new Set(server.requests.map((r) => r.remotePort)).size).toBeLessThan(server.requests.length);
      expect(clients.redactor.redact('shared-data-key rpc-only-key')).toBe('[REDACTED] [REDACTED]');
    } finally {
      await clients.close();
      await server.close();
    }
  });
});
