/**
 * Client overheads, as ratios against baselines measured in the same run:
 * - lossless JSON parsing of a getTransaction-sized RPC response vs plain JSON.parse;
 * - a keep-alive GET round trip through the HTTP client (retry bookkeeping, timeout, parsing)
 *   vs a bare undici Pool.request on the same loopback server.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { createHttpClient, parseJsonLossless } from '../src/client/http/index.js';
import { opsPerSecond, percentile, type Bench } from './harness.js';
import { createServiceMetrics } from '../src/service/daemon/service-metrics.js';

const rpcText = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: {
    slot: 300_000_000,
    blockTime: 1_700_000_000,
    transaction: ['A'.repeat(1200), 'base64'],
    meta: {
      fee: 5000,
      err: null,
      preBalances: Array.from({ length: 16 }, (_, i) => 1_000_000_000 + i),
      postBalances: Array.from({ length: 16 }, (_, i) => 999_995_000 + i),
      preTokenBalances: [{ accountIndex: 3, mint: 'M'.repeat(44), owner: 'O'.repeat(44), uiTokenAmount: { amount: '123456789', decimals: 6 } }],
      postTokenBalances: [{ accountIndex: 3, mint: 'M'.repeat(44), owner: 'O'.repeat(44), uiTokenAmount: { amount: '223456789', decimals: 6 } }],
      logMessages: Array.from({ length: 20 }, (_, i) => `Program log: instruction ${i} "quoted" 12345678901234567890`),
    },
  },
});

/** A typical status response: no 16-digit run anywhere, so the lossless parser takes its fast path. */
const statusText = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  result: {
    context: { slot: 300_000_000 },
    value: Array.from({ length: 64 }, (_, i) => ({ slot: 299_999_000 + i, confirmations: null, err: null, confirmationStatus: 'finalized' })),
  },
});

async function roundTrips(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  return out;
}

const bench: Bench = {
  name: 'client',
  async run() {
    const plain = opsPerSecond(() => JSON.parse(rpcText), 500, 20);
    const lossless = opsPerSecond(() => parseJsonLossless(rpcText), 500, 20);
    const plainStatus = opsPerSecond(() => JSON.parse(statusText), 500, 20);
    const losslessStatus = opsPerSecond(() => parseJsonLossless(statusText), 500, 20);

    const body = JSON.stringify({ price: 1.2345 });
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const pool = new Pool(url, { connections: 1 });
    const client = createHttpClient({ baseUrl: url, service: 'bench', auth: { kind: 'header', name: 'x-api-key', value: 'bench-key' } });
    // The same client observed by the daemon's Prometheus series (histogram + counters per call).
    const observedClient = createHttpClient({
      baseUrl: url,
      service: 'data-api',
      auth: { kind: 'header', name: 'x-api-key', value: 'bench-key' },
      telemetry: createServiceMetrics().endpoint,
    });
    try {
      const raw = async (): Promise<unknown> => JSON.parse(await (await pool.request({ method: 'GET', path: '/price?token=M' })).body.text()) as unknown;
      const ours = (): Promise<unknown> => client.json({ method: 'GET', path: '/price', query: { token: 'M' }, kind: 'read' });
      await roundTrips(200, raw);
      const observed = (): Promise<unknown> => observedClient.json({ method: 'GET', path: '/price', query: { token: 'M' }, kind: 'read' });
      await roundTrips(200, ours);
      await roundTrips(200, observed);
      const rawUs = percentile(await roundTrips(2000, raw), 50);
      const oursUs = percentile(await roundTrips(2000, ours), 50);
      const observedUs = percentile(await roundTrips(2000, observed), 50);
      return [
        { name: 'JSON.parse rpc response (baseline)', value: plain, unit: 'ops/s' },
        { name: 'parseJsonLossless rpc response', value: lossless, unit: 'ops/s', ratio: lossless / plain, note: 'has 16-digit runs: slow path' },
        { name: 'JSON.parse status response (baseline)', value: plainStatus, unit: 'ops/s' },
        { name: 'parseJsonLossless status response', value: losslessStatus, unit: 'ops/s', ratio: losslessStatus / plainStatus, note: 'fast path' },
        { name: 'undici Pool GET p50 (baseline)', value: rawUs, unit: 'us' },
        { name: 'http client GET p50', value: oursUs, unit: 'us', ratio: oursUs / rawUs },
        {
          name: 'http client GET p50 with daemon telemetry',
          value: observedUs,
          unit: 'us',
          ratio: observedUs / rawUs,
          note: `${(observedUs / oursUs).toFixed(2)}x the unobserved client`,
        },
      ];
    } finally {
      await client.close();
      await observedClient.close();
      await pool.close();
      server.closeAllConnections();
      server.close();
    }
  },
};
export default bench;
