/**
 * Queued execution against the simulator's real ledger: the ledger (`startSimChain`), a Redis
 * command connection, and wallet workers in this process with the real typed clients. Shared by the
 * queue-execution and unknown-submit tests.
 */
import { Redis } from 'ioredis';
import { createRpcClient, createSwapClient } from '../../../src/client/index.js';
import type { Clock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/logger.js';
import { startWalletWorker, type WalletWorker, type WalletWorkerOptions } from '../../../src/executors/queue/wallet-worker.js';
import type { Signer } from '../../../src/executors/signer/signer.js';
import { REDIS_URL } from '../../helpers/redis.js';
import { SIM_ALLOWED_PROGRAMS, startSimChain, type SimChain } from './sim-chain.js';

export interface SimQueue {
  readonly chain: SimChain;
  /** Command connection to REDIS_URL (`maxRetriesPerRequest: null`, as BullMQ wants). */
  readonly redis: Redis;
  /** Quits the Redis connection and stops the simulator. */
  close(): Promise<void>;
}

/** Starts the simulator's ledger (seeded by `seed`) and a Redis connection. */
export async function startSimQueue(seed: string): Promise<SimQueue> {
  const chain = await startSimChain({ seed });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  return {
    chain,
    redis,
    async close() {
      await redis.quit();
      await chain.close();
    },
  };
}

/** Live settings of a worker on the simulator: fast polls and re-broadcasts, the simulator's validity window. */
export function simWorkerSettings(chain: SimChain): WalletWorkerOptions['settings'] {
  return {
    maxTradeLamports: 10_000_000_000n,
    maxDayLamports: 1_000_000_000_000n,
    allowedPrograms: SIM_ALLOWED_PROGRAMS,
    pollMs: 10,
    rebroadcastMs: 30,
    blockhashValidityBlocks: chain.validBlocks,
    expiryMarginBlocks: 3,
  };
}

/**
 * A wallet worker on the simulator with short leases (600 ms), job locks (1 s) and stalled checks
 * (300 ms), so take-overs happen within a test; `extra` overrides any option.
 */
export function startSimWalletWorker(
  q: Pick<SimQueue, 'chain' | 'redis'>,
  o: { readonly prefix: string; readonly signer: Signer; readonly holder: string; readonly clock: Clock; readonly settings?: WalletWorkerOptions['settings'] },
  extra: Partial<WalletWorkerOptions> = {},
): WalletWorker {
  const rpc = createRpcClient({ url: q.chain.rpcUrl, apiKey: q.chain.apiKey, timeoutMs: 2_000 });
  const swap = createSwapClient({ url: q.chain.swapUrl, timeoutMs: 5_000 });
  return startWalletWorker({
    redis: q.redis,
    prefix: o.prefix,
    signer: o.signer,
    rpc,
    swap: { buildSwap: swap.buildSwap },
    clock: o.clock,
    log: silentLogger(),
    holder: o.holder,
    settings: o.settings ?? simWorkerSettings(q.chain),
    leaseTtlMs: 600,
    lockDurationMs: 1_000,
    stalledIntervalMs: 300,
    ...extra,
  });
}
