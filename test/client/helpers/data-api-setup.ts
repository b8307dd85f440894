/**
 * A Data API client against a recording test server, closed after each test: `useDataApiServer()`
 * registers the `afterEach` and returns `setup(handler)`, which starts the server answering with
 * `handler` and a client on it (jump clock, seeded random, 2 s timeout).
 */
import { afterEach } from 'vitest';
import { createDataApiClient, type DataApiClient } from '../../../src/client/data-api/index.js';
import { seededRandom } from '../../../src/core/index.js';
import { jumpClock, startServer, type Handler, type TestServer } from './test-server.js';

export function useDataApiServer(): (handler: Handler) => Promise<{ server: TestServer; api: DataApiClient }> {
  let server: TestServer | undefined;
  let api: DataApiClient | undefined;
  afterEach(async () => {
    await api?.close();
    await server?.close();
    api = undefined;
    server = undefined;
  });
  return async (handler) => {
    server = await startServer(handler);
    api = createDataApiClient({ baseUrl: server.url, apiKey: 'data-key-1234', clock: jumpClock(), random: seededRandom(5), timeoutMs: 2000 });
    return { server, api };
  };
}
