import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { effectiveConfigYaml, parseDeployment } from '../../src/config/index.js';
import { DEFAULT_WALLET_CONCURRENCY } from '../../src/executors/queue/queue-names.js';
import { startWorkers } from '../../src/runtime/queue/run-worker.js';

const base = 'version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\n';

describe('execution.queue in the deployment config', () => {
  it('is off by default and resolves prefix, catch-up timeout and concurrency when set, with the URL from the environment', () => {
    expect(parseDeployment(base, 'd.yaml', { env: {} }).deployment.execution.queue).toBeUndefined();
    const loaded = parseDeployment(`${base}execution:\n  queue:\n    url: \${REDIS_URL}\n    catchUpTimeout: 30s\n`, 'd.yaml', {
      env: { REDIS_URL: 'redis://:hunter2@10.0.0.5:6379' },
    });
    expect(loaded.deployment.execution.queue).toEqual({ url: 'redis://:hunter2@10.0.0.5:6379', prefix: 'chainpilot', catchUpTimeout: 30_000, concurrency: 32 });
    const set = parseDeployment(`${base}execution:\n  queue:\n    url: redis://h:6379\n    concurrency: 4\n`, 'd.yaml', { env: {} });
    expect(set.deployment.execution.queue?.concurrency).toBe(4);
    expect(DEFAULT_WALLET_CONCURRENCY, "the schema default and the executors' default agree").toBe(32);
    expect(loaded.secrets).toContain('redis://:hunter2@10.0.0.5:6379'); // redacted from logs and errors
    expect(effectiveConfigYaml(loaded.deployment)).not.toContain('hunter2');
  });

  it('rejects a URL that is not redis://, a bad prefix or wallet, naming the field', () => {
    let message = '';
    try {
      parseDeployment(`${base}execution:\n  queue:\n    url: http://x\n    prefix: "a:b"\n    wallet: nope\n    concurrency: 0\n`, 'd.yaml', { env: {} });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('execution.queue.url: expected a redis:// or rediss:// URL');
    expect(message).toContain('execution.queue.prefix: expected letters, digits');
    expect(message).toContain('execution.queue.wallet: expected a base58 address');
    expect(message).toContain('execution.queue.concurrency');
  });
});

describe('chainpilot worker start-up refusals (before any Redis connection)', () => {
  it('refuses deployment files without a wallet key (QUEUE_NO_WALLETS) and a wallet without remote RPC and swap URLs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-worker-'));
    try {
      const keyless = join(dir, 'keyless.yaml');
      writeFileSync(keyless, base);
      await expect(startWorkers({ redisUrl: 'redis://127.0.0.1:1', files: [keyless] })).rejects.toMatchObject({ code: 'QUEUE_NO_WALLETS' });
      const embedded = join(dir, 'embedded.yaml');
      writeFileSync(embedded, `${base}wallet:\n  secretKey: \${K}\n`);
      const key = JSON.stringify(Array.from({ length: 64 }, (_, i) => i));
      await expect(startWorkers({ redisUrl: 'redis://127.0.0.1:1', files: [embedded], env: { K: key } })).rejects.toMatchObject({
        code: 'RUNTIME_LIVE_ENDPOINTS_MISSING',
        message: expect.stringContaining('endpoints.remote.rpcUrl'),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
