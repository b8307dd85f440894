/**
 * `chainpilot run --live` with `execution.queue`: the shipped live-sim deployment pointed at a
 * simulator served separately (as `chainpilot sim` would), its intents queued through a durable
 * Redis (its own redis-server, AOF) to a worker (`startWorkers`, the `chainpilot worker` root).
 * The chain, the Redis journal and the portfolio are compared with each other.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getBase58Decoder } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/index.js';
import { runLive } from '../../src/runtime/shell/run-live.js';
import { startWorkers } from '../../src/runtime/queue/run-worker.js';
import { ledgerServices } from '../../src/sim/ledger/index.js';
import { startSimulator } from '../../src/sim/start-simulator.js';
import { startOwnRedis, useRedis } from '../helpers/redis.js';

const redisOk = await useRedis();
const dir = mkdtempSync(join(tmpdir(), 'cp-queue-live-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!redisOk)('runLive with queued execution', () => {
  it("queues the deployment's intents to a worker: each lands at most once, is reported once, and the portfolio equals the wallet on chain", async () => {
    const wallet = Keypair.generate();
    const address = wallet.publicKey.toBase58();
    const apiKey = 'queue-live-key';
    const sim = await startSimulator({
      seed: 42,
      speed: 60,
      apiKey,
      log: silentLogger(),
      services: [ledgerServices({ onLedger: (l) => void l.airdrop(address, 10_000_000_000n) })],
    });
    const own = await startOwnRedis();
    let workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
    try {
      const remote = [
        'endpoints:',
        '  remote:',
        `    baseUrl: ${sim.urls.base}`,
        `    datastreamUrl: ${sim.urls.datastream}`,
        `    apiKey: ${apiKey}`,
        `    rpcUrl: ${sim.urls['rpc'] ?? ''}`,
        `    swapUrl: ${sim.urls['swap'] ?? ''}`,
        `    rpcApiKey: ${apiKey}`,
      ].join('\n');
      const yaml = readFileSync('config/live-sim.yaml', 'utf8')
        .replace(/endpoints:\n {2}simulator:\n {4}seed: 42\n {4}speed: 60[^\n]*\n/, `${remote}\n`)
        .replace('  keypairPath: ./wallet.json   # relative to the working directory', `  secretKey: ${getBase58Decoder().decode(wallet.secretKey)}`)
        .replace('execution:\n', `execution:\n  queue:\n    url: ${own.url}\n`)
        .replace('./data/live-sim.journal.sqlite', join(dir, 'unused.sqlite'));
      expect(yaml).toContain('queue:');
      expect(yaml).toContain('remote:');
      const file = join(dir, 'live-queued.yaml');
      writeFileSync(file, yaml);
      workers = await startWorkers({ redisUrl: own.url, files: [file], log: silentLogger(), settings: { pollMs: 50, rebroadcastMs: 300 } });
      expect(workers.wallets).toEqual([address]);
      const printed: string[] = [];
      let landedSigs: string[] = [];
      let onChain: (string | null)[] = [];
      const result = await runLive({
        file,
        live: true,
        durationMs: 8_000,
        out: (t) => printed.push(t),
        log: silentLogger(),
        inspect: async (view) => {
          const landed = await view.journal.landed();
          landedSigs = landed.map((r) => r.fill?.signature ?? '');
          const all = (await Promise.all((await view.journal.landed()).map(async (r) => r.attempts.map((a) => a.signature)))).flat();
          const { value } = await view.rpc.getSignatureStatuses(all, { searchTransactionHistory: true });
          onChain = value.map((s) => (s === null ? null : s.err === null ? 'ok' : 'err'));
        },
      });
      expect(printed.join('')).toContain('queued to workers through Redis');
      expect(landedSigs.length).toBeGreaterThan(0);
      expect(onChain.filter((s) => s === 'ok')).toHaveLength(landedSigs.length); // one landed transaction per landed intent
      expect(result.summary.fills).toBe(landedSigs.length);
      expect(result.unresolvedIntents).toBe(0);
      expect(result.cashLamports).toBe(result.walletLamports);
    } finally {
      await workers?.stop({ drainMs: 0 });
      await own.stop();
      await sim.stop();
    }
  }, 90_000);
});
