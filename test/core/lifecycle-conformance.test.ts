/**
 * Every long-running part against the one Lifecycle contract (test/helpers/lifecycle-conformance.ts):
 * the real simulator (in process, embedded, in its worker thread), the feed watch, the recorder
 * (its real writing thread), the notifier and the notify hub (a real local receiver), the shared
 * endpoints, the supervisor, and the wallet worker (real Redis; skipped with a printed reason when
 * Redis is absent and not CI). A stop stuck draining is driven by a manual clock (the notifier, the
 * hub, the recorder) or by wall time on a request proven in hand (the wallet worker).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { createRpcClient, createSwapClient } from '../../src/client/index.js';
import { notifySchema, type NotifyConfig } from '../../src/config/index.js';
import {
  createLifecycle,
  createRedactor,
  HALT_GRACE_MS,
  lifecycleMembers,
  manualClock,
  silentLogger,
  systemClock,
  type Bps,
  type Lamports,
  type LifecycleEnd,
  type LifecycleHealth,
  type UnixMs,
} from '../../src/core/index.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { encodeIntent } from '../../src/executors/journal/codec.js';
import { walletQueueName } from '../../src/executors/queue/queue-names.js';
import { startWalletWorker } from '../../src/executors/queue/wallet-worker.js';
import { keypairSigner } from '../../src/executors/signer/signer.js';
import { createRecorder, recordingPrefix } from '../../src/research/record/recorder.js';
import { startEmbeddedSim } from '../../src/runtime/embedded/embedded-sim.js';
import { createFeedWatch } from '../../src/runtime/handle/feed-watch.js';
import { startIsolatedSim } from '../../src/runtime/embedded/isolated-sim.js';
import { createSharedEndpoints } from '../../src/service/daemon/shared-endpoints.js';
import { createSupervisor } from '../../src/service/daemon/supervisor.js';
import type { Draft } from '../../src/service/notify/messages.js';
import { createNotifier } from '../../src/service/notify/notifier.js';
import { createNotifyHub } from '../../src/service/notify/notify-hub.js';
import { startSimulator } from '../../src/sim/start-simulator.js';
import { lifecycleConformance } from '../helpers/lifecycle-conformance.js';
import { REDIS_URL, useRedis } from '../helpers/redis.js';

const log = silentLogger();

/** A local HTTP server that takes each request and never answers it. */
async function hangingServer(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server: Server = createServer(() => void requests++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  return {
    url: `http://127.0.0.1:${a && typeof a === 'object' ? a.port : 0}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const webhookConfig = (url: string): NotifyConfig =>
  notifySchema.parse({
    webhook: { url: `${url}/hook`, secret: 'webhook-shared-secret-0123456789', timeout: 60_000, retries: 0, retryBase: 10, retryMax: 50 },
    events: { fills: 'on' },
  });

const draft = (key: string): Draft => ({ key, event: 'fills', deployment: 'paper-a', at: Date.UTC(2026, 10, 27), text: 'paper-a: bought', data: {} });

async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A part on createLifecycle whose start and halt are the test's own (never settling when asked):
 * the rules themselves, on a manual clock. The real parts below inherit them.
 */
function referencePart(o: { readonly startNever?: boolean; readonly haltNever?: boolean } = {}) {
  const clock = manualClock(0);
  let entered!: () => void;
  const inStart = new Promise<void>((r) => (entered = r));
  const life = createLifecycle(
    {
      name: 'reference part',
      start: () => {
        entered();
        // a start that never settles, and ignores its signal: the worst a part can do
        return o.startNever ? new Promise<void>(() => undefined) : Promise.resolve();
      },
      startStep: () => 'waiting on a peer that never answers',
      halt: () => (o.haltNever ? new Promise<void>(() => undefined) : Promise.resolve()),
      // the old lifecycle called report() without what was abandoned
      report: (end?: LifecycleEnd) => ({ abandoned: end?.abandoned ?? [] }),
    },
    { clock, log, defaultDrainMs: 1_000 },
  );
  return { part: lifecycleMembers(life), clock, inStart: () => inStart };
}

for (const drainMs of [0, 1_000]) {
  describe(`a part whose start or halt never settles (createLifecycle on a manual clock, drainMs ${drainMs})`, () => {
    lifecycleConformance<{ abandoned: readonly string[] }, LifecycleHealth>({
      make: () => Promise.resolve({ part: referencePart().part }),
      slowStart: {
        drainMs,
        make: () => {
          const p = referencePart({ startNever: true });
          return Promise.resolve({
            part: p.part,
            inStart: p.inStart,
            pastDeadline: (ms) => p.clock.advance(ms),
            abandonedIn: (r) =>
              expect(r.abandoned).toEqual([`start: waiting on a peer that never answers: still pending at the stop's deadline of ${drainMs} ms`]),
          });
        },
      },
      hungHalt: {
        drainMs,
        make: () => {
          const p = referencePart({ haltNever: true });
          return Promise.resolve({
            part: p.part,
            pastDeadline: async (ms) => {
              p.clock.advance(ms);
              // the grace's timer is set in the promise jobs that follow the deadline: let them run
              await new Promise((r) => setImmediate(r));
              p.clock.advance(HALT_GRACE_MS);
            },
            abandonedIn: (r) => expect(r.abandoned).toEqual([`halt: still running ${HALT_GRACE_MS} ms past the stop's deadline; the stop returned without it`]),
          });
        },
      },
    });
  });
}

describe('the simulator (startSimulator)', () => {
  lifecycleConformance({ make: async () => ({ part: await startSimulator({ seed: 1, clock: manualClock(Date.UTC(2026, 0, 1)) }) }) });
});

describe('the embedded simulator', () => {
  lifecycleConformance({
    make: async () => ({ part: await startEmbeddedSim({ seed: 1, speed: 'max', redactor: createRedactor(), log, clock: manualClock(Date.UTC(2026, 0, 1)) }) }),
  });
});

describe('the isolated simulator (its worker thread)', () => {
  lifecycleConformance({ make: async () => ({ part: await startIsolatedSim({ seed: 1, speed: 'max', redactor: createRedactor(), log }) }), timeoutMs: 30_000 });
});

describe('the feed watch', () => {
  lifecycleConformance({
    make: () => Promise.resolve({ part: createFeedWatch({ clock: manualClock(0), source: undefined, staleAfterMs: 1_000, log, onChange: () => undefined }) }),
  });
});

describe('the recorder (its writing thread)', () => {
  const tmp = (): string => mkdtempSync(join(tmpdir(), 'cp-lifecycle-rec-'));
  lifecycleConformance({
    make: () => {
      const dir = tmp();
      const part = createRecorder({
        dir,
        source: 'conf',
        clock: manualClock(0),
        clockKind: 'simulator',
        rooms: [],
        endpoints: {},
        redactor: createRedactor(),
        log,
      });
      return Promise.resolve({ part, cleanup: () => rmSync(dir, { recursive: true, force: true }) });
    },
    stuck: {
      drainMs: 1_000,
      make: () => {
        const dir = tmp();
        // The recording's first file is a FIFO nobody reads: the writing thread's open never returns.
        const fifo = `${join(dir, recordingPrefix('stuck', 0))}.0000.jsonl.gz`;
        execFileSync('mkfifo', [fifo]);
        const clock = manualClock(0);
        const part = createRecorder({
          dir,
          source: 'stuck',
          clock,
          deadlineClock: clock,
          clockKind: 'simulator',
          rooms: [],
          endpoints: {},
          redactor: createRedactor(),
          log,
        });
        return Promise.resolve({
          part,
          inHand: async () => {
            part.onRawFrame('{"room":"latest"}', 0 as UnixMs);
            part.flush();
            // the thread is alive and took the batch (never written: its open blocks)
            await until('a line handed over', () => part.writer.stats().lines >= 2);
          },
          pastDeadline: (ms) => clock.advance(ms),
          cutShort: (r) => expect(r).toMatchObject({ complete: false }),
          cleanup: () => {
            // a reader releases the blocked open of the ended thread
            closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK));
            rmSync(dir, { recursive: true, force: true });
          },
        });
      },
    },
  });
});

describe('the notifier (a real local receiver)', () => {
  lifecycleConformance({
    make: async () => {
      const r = await hangingServer();
      return { part: createNotifier({ config: webhookConfig(r.url), idPrefix: 'c', redactor: createRedactor(), log }), cleanup: () => r.close() };
    },
    stuck: {
      drainMs: 2_000,
      make: async () => {
        const r = await hangingServer();
        const clock = manualClock(0);
        const part = createNotifier({ config: webhookConfig(r.url), idPrefix: 'c', redactor: createRedactor(), log, clock });
        part.notify(draft('a'));
        part.notify(draft('b'));
        return {
          part,
          inHand: () => until('the receiver holds the first notification', () => r.requests() === 1),
          pastDeadline: (ms) => clock.advance(ms),
          // the one in flight was given up, the other never went out
          cutShort: (report) => expect(report['webhook']).toMatchObject({ sent: 0, failed: 1, queued: 1 }),
          cleanup: () => r.close(),
        };
      },
    },
  });
});

describe('the notify hub (a real local receiver)', () => {
  lifecycleConformance({
    make: async () => {
      const r = await hangingServer();
      return { part: createNotifyHub({ daemonConfig: webhookConfig(r.url), idPrefix: 'h', redactor: createRedactor(), log }), cleanup: () => r.close() };
    },
    stuck: {
      drainMs: 2_000,
      make: async () => {
        const r = await hangingServer();
        const clock = manualClock(0);
        const part = createNotifyHub({ daemonConfig: webhookConfig(r.url), idPrefix: 'h', redactor: createRedactor(), log, clock });
        part.daemonNotice({ key: 'm1', event: 'fills', text: 'one', data: {} });
        part.daemonNotice({ key: 'm2', event: 'fills', text: 'two', data: {} });
        return {
          part,
          inHand: () => until('the receiver holds the first notice', () => r.requests() === 1),
          pastDeadline: (ms) => clock.advance(ms),
          cutShort: (report) => expect(report['daemon']?.['webhook']).toMatchObject({ sent: 0, failed: 1, queued: 1 }),
          cleanup: () => r.close(),
        };
      },
    },
  });
});

describe('the shared endpoints', () => {
  lifecycleConformance({ make: () => Promise.resolve({ part: createSharedEndpoints({ log }) }) });
});

describe('the supervisor', () => {
  lifecycleConformance({
    make: () =>
      Promise.resolve({
        part: createSupervisor({
          deps: { acquire: () => Promise.resolve({ deps: {}, release: () => Promise.resolve() }) },
          factory: () => {
            throw new Error('no deployment is applied in this test');
          },
          clock: systemClock(),
          log,
        }),
      }),
  });
});

const redisOk = await useRedis();

describe.skipIf(!redisOk)('the wallet worker (real Redis)', () => {
  const intent = (id: string): OrderIntent => ({
    id,
    strategyId: 'conf',
    side: 'buy',
    mint: Keypair.generate().publicKey.toBase58(),
    decimals: 6,
    spendLamports: 10_000_000n as Lamports,
    slippageBps: 100 as Bps,
    priorityFeeLamports: 10_000n as Lamports,
    referencePrice: undefined,
    createdAt: Date.now() as UnixMs,
    reason: 'lifecycle conformance',
  });
  const setUp = async (onLeased?: () => void) => {
    const prefix = `cp-life-${randomBytes(4).toString('hex')}`;
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    // RPC and swap service that take each request and never answer: a job in hand never finishes
    const hang = await hangingServer();
    const signer = keypairSigner(Keypair.generate());
    const part = startWalletWorker({
      redis,
      prefix,
      signer,
      rpc: createRpcClient({ url: hang.url, timeoutMs: 60_000 }),
      swap: createSwapClient({ url: hang.url, timeoutMs: 60_000 }),
      clock: systemClock(),
      log,
      holder: 'conformance',
      settings: { maxTradeLamports: 10_000_000_000n, maxDayLamports: 1_000_000_000_000n, maxIntentAgeMs: 3_600_000, maxRebuildAgeMs: 3_600_000 },
      leaseTtlMs: 5_000,
      ...(onLeased ? { probe: (point) => void (point === 'leased' ? onLeased() : undefined) } : {}),
    });
    const cleanup = async (): Promise<void> => {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
      await hang.close();
    };
    return { part, prefix, redis, signer, cleanup };
  };
  lifecycleConformance({
    make: async () => {
      const { part, cleanup } = await setUp();
      return { part, cleanup };
    },
    stuck: {
      drainMs: 300,
      make: async () => {
        let leased = false;
        const { part, prefix, redis, signer, cleanup } = await setUp(() => (leased = true));
        const queue = new Queue(walletQueueName(signer.address), { connection: redis, prefix });
        const i = intent(`conf-${randomBytes(4).toString('hex')}`);
        await queue.add('intent', { intent: encodeIntent(i) }, { jobId: i.id });
        return {
          part,
          inHand: () => until('the worker runs the job', () => leased && part.stats().running),
          // wall time: the stop resolving at all proves the deadline (the job's requests are never answered)
          cutShort: (r) => expect(r.jobsCompleted).toBe(0),
          cleanup: async () => {
            await queue.close();
            await cleanup();
          },
        };
      },
    },
    timeoutMs: 30_000,
  });
});
