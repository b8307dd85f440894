/**
 * The network check at live start retries transient RPC failures (issue 29: one -32603 on
 * getVersion refused a live start). Through the real JSON-RPC client on a real socket: a node that
 * fails -32603 once (or a few times, or answers 503) is asked again after a backoff on the run
 * clock and the start goes on; one that keeps failing is refused with RUNTIME_LIVE_NETWORK_UNREACHABLE
 * after the bounded attempts; a definitive answer is never retried.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/client/rpc/index.js';
import { isChainpilotError, seededRandom } from '../../src/core/index.js';
import { checkLiveNetwork, GENESIS_HASHES } from '../../src/runtime/live/live-network.js';
import { jumpClock, sendJson } from '../client/helpers/test-server.js';
import { startRpcServer, type RpcServer } from '../client/helpers/rpc-server.js';
import { fuzzParams } from '../helpers/fuzz.js';

let server: RpcServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const INTERNAL = { error: { code: -32603, message: 'Internal error' } };

/** A node that fails `failures` times on getVersion (with -32603, or HTTP 503), then answers as the simulator or devnet. */
async function flakyNode(failures: number, how: 'rpc' | 'http', devnet = false) {
  let n = 0;
  server = await startRpcServer({
    getVersion: (_p, _c, res) => {
      if (n++ < failures) {
        if (how === 'rpc') return INTERNAL;
        sendJson(res, 503, { error: 'busy' });
        return { raw: true };
      }
      return { result: { 'solana-core': devnet ? '2.1.14' : '2.2.0-chainpilot-sim' } };
    },
    getGenesisHash: () => ({ result: GENESIS_HASHES.devnet }),
  });
  const clock = jumpClock();
  // the client's own HTTP retries off, so every failure reaches the check
  const rpc = createRpcClient({ url: server.url, clock, random: seededRandom(1), retry: { maxAttempts: 1 } });
  return { rpc, clock, calls: () => server!.calls.filter((c) => c.method === 'getVersion').length };
}

async function outcome(p: Promise<void>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return isChainpilotError(e) ? e.code : `uncoded ${String(e)}`;
  }
}

describe('the live network check on a flaky RPC', () => {
  it('one -32603 on getVersion: asked again after a backoff on the run clock, and the start goes on', async () => {
    const { rpc, clock, calls } = await flakyNode(1, 'rpc');
    await expect(checkLiveNetwork(rpc, 'simulator', undefined, { clock })).resolves.toBeUndefined();
    expect(calls()).toBe(2);
    expect(clock.delays.filter((d) => d <= 4_000).length).toBeGreaterThan(0);
    await rpc.close();
  });

  it('a node that keeps failing is refused with RUNTIME_LIVE_NETWORK_UNREACHABLE after the bounded attempts', async () => {
    const { rpc, clock, calls } = await flakyNode(1_000, 'rpc');
    let error: unknown;
    try {
      await checkLiveNetwork(rpc, 'simulator', undefined, { clock, attempts: 5 });
    } catch (e) {
      error = e;
    }
    expect(isChainpilotError(error) && error.code).toBe('RUNTIME_LIVE_NETWORK_UNREACHABLE');
    expect((error as Error).message).toContain('the RPC failed getVersion 5 times in a row (last: RPC_ERROR');
    expect(calls()).toBe(5);
    await rpc.close();
  });

  it('any number of transient failures (-32603 or HTTP 503) within the attempts passes; more are refused as unreachable; never a mismatch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 7 }), fc.constantFrom('rpc' as const, 'http' as const), fc.boolean(), async (failures, how, devnet) => {
        const { rpc, clock, calls } = await flakyNode(failures, how, devnet);
        const got = await outcome(checkLiveNetwork(rpc, devnet ? 'devnet' : 'simulator', undefined, { clock, attempts: 5 }));
        expect(got).toBe(failures < 5 ? 'ok' : 'RUNTIME_LIVE_NETWORK_UNREACHABLE');
        expect(calls()).toBe(Math.min(failures + 1, 5));
        await rpc.close();
        await server!.close();
        server = undefined;
      }),
      fuzzParams({ numRuns: 30, seed: 2909 }),
    );
  });

  it('a definitive answer is not retried: the wrong network is a mismatch at the first answer', async () => {
    const { rpc, clock, calls } = await flakyNode(0, 'rpc', true);
    expect(await outcome(checkLiveNetwork(rpc, 'simulator', undefined, { clock }))).toBe('RUNTIME_LIVE_NETWORK_MISMATCH');
    expect(calls()).toBe(1);
    await rpc.close();
  });
});
