/**
 * The worker process the queue chaos test kills: `startWorkers` (the `chainpilot worker` composition
 * root) on the deployment files in $FILES against $REDIS_URL, until SIGKILLed. CRASH_AT=point:nth
 * makes it SIGKILL itself at the nth pass through a named instant of a job. Bundled once per test
 * file so each restart is a plain `node` start.
 */
import { createLogger } from '../../../src/core/logger.js';
import { createRedactor } from '../../../src/core/redact.js';
import { startWorkers } from '../../../src/runtime/queue/run-worker.js';

async function main(): Promise<void> {
  const env = (k: string): string => {
    const v = process.env[k];
    if (v === undefined) throw new Error(`missing ${k}`);
    return v;
  };
  const [crashPoint, crashNth] = (process.env['CRASH_AT'] ?? '').split(':');
  let passes = 0;
  const running = await startWorkers({
    redisUrl: env('REDIS_URL'),
    files: env('FILES').split(','),
    holder: env('HOLDER'),
    log: createLogger({ redactor: createRedactor(), level: 'warn', name: 'chaos-worker', destination: process.stderr }),
    settings: {
      pollMs: 10,
      rebroadcastMs: 30,
      blockhashValidityBlocks: Number(env('VALIDITY_BLOCKS')),
      expiryMarginBlocks: 3,
      maxAttempts: 3,
      maxIntentAgeMs: 3_600_000,
      maxRebuildAgeMs: 3_600_000,
    },
    leaseTtlMs: 800,
    lockDurationMs: 1_500,
    stalledIntervalMs: 400,
    probe: (point) => {
      if (point === crashPoint && ++passes === Number(crashNth)) process.kill(process.pid, 'SIGKILL');
    },
  });
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void running.stop().then(() => process.exit(0)));
}

main().catch((e: unknown) => {
  process.stderr.write(`worker child failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
