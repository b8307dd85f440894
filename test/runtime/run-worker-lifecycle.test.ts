/**
 * The worker process's `RunningWorkers` (the `chainpilot worker` root) against the shared Lifecycle
 * conformance test, on real Redis (skipped with a printed reason when Redis is absent and not CI).
 * Its RPC and swap endpoints are a local server that never answers: no job is queued here, so the
 * workers only wait on their queue.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getBase58Decoder } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { Redis } from 'ioredis';
import { describe } from 'vitest';
import { silentLogger } from '../../src/core/index.js';
import { startWorkers } from '../../src/runtime/queue/run-worker.js';
import { lifecycleConformance } from '../helpers/lifecycle-conformance.js';
import { REDIS_URL, useRedis } from '../helpers/redis.js';

const redisOk = await useRedis();

describe.skipIf(!redisOk)('the worker process (RunningWorkers, real Redis)', () => {
  lifecycleConformance({
    make: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cp-workers-life-'));
      const server = createServer(() => undefined);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const prefix = `cp-life-${randomBytes(4).toString('hex')}`;
      const remote = [
        'endpoints:',
        '  remote:',
        `    baseUrl: ${url}`,
        `    datastreamUrl: ws://127.0.0.1:1`,
        '    apiKey: k',
        `    rpcUrl: ${url}`,
        `    swapUrl: ${url}`,
      ].join('\n');
      const yaml = readFileSync('config/live-sim.yaml', 'utf8')
        .replace(/endpoints:\n {2}simulator:\n {4}seed: 42\n {4}speed: 60[^\n]*\n/, `${remote}\n`)
        .replace(
          '  keypairPath: ./wallet.json   # relative to the working directory',
          `  secretKey: ${getBase58Decoder().decode(Keypair.generate().secretKey)}`,
        )
        .replace('execution:\n', `execution:\n  queue:\n    url: ${REDIS_URL}\n    prefix: ${prefix}\n`)
        .replace('./data/live-sim.journal.sqlite', join(dir, 'unused.sqlite'));
      const file = join(dir, 'queued.yaml');
      writeFileSync(file, yaml);
      const part = await startWorkers({ redisUrl: REDIS_URL, files: [file], log: silentLogger(), unsafeAllowVolatileRedis: true });
      return {
        part,
        cleanup: async () => {
          const redis = new Redis(REDIS_URL);
          const keys = await redis.keys(`${prefix}:*`);
          if (keys.length > 0) await redis.del(...keys);
          await redis.quit();
          server.closeAllConnections();
          await new Promise<void>((r) => server.close(() => r()));
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    timeoutMs: 30_000,
  });
});
