/**
 * Chaos test of scale-out with real Redis: an engine feeds intents for four wallets through their
 * BullMQ queues to 3 worker processes (`startWorkers`, the `chainpilot worker` root) trading on the
 * simulator's ledger with its seeded faults. Workers are SIGKILLed at least 30 times, at random
 * moments and at named instants of a job (lease taken, built, signed, sent, resolved); the test's own
 * redis-server (AOF, appendfsync always) is SIGKILLed once mid-run and restarted from its AOF; the
 * engine is restarted once (it catches up and rebuilds its portfolio from the journal). At the end:
 * at most one landed transaction per intent, every landed transaction in the portfolio exactly
 * once, and the ledger's balances equal the portfolio's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Redis } from 'ioredis';
import { workerDeploymentYaml } from './support/worker-deployment.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { seededRandom } from '../../src/core/random.js';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport, Fill } from '../../src/engine/orders/execution-port.js';
import { createPortfolio, type Portfolio } from '../../src/engine/market/portfolio.js';
import { openRedisJournal } from '../../src/executors/journal/redis-journal.js';
import { createQueueExecutor, type QueueExecutor } from '../../src/executors/queue/queue-executor.js';
import { readLeaseStats } from '../../src/executors/queue/wallet-lease.js';
import { startOwnRedis, useRedis, type OwnRedis } from '../helpers/redis.js';
import { startSimChain, type SimChain } from '../executors/support/sim-chain.js';

const redisOk = await useRedis(); // the binary runs where a Redis runs; CI always has both
const dir = mkdtempSync(join(tmpdir(), 'chainpilot-chaos-'));
const childBundle = join(dir, 'queue-worker-child.cjs');
const nodePath = fileURLToPath(new URL('../../node_modules', import.meta.url));
const WALLETS = 4;
const SLOTS = 3;
const MIN_KILLS = 32;
const MIN_INTENTS = 60;
const POINTS = ['leased', 'built', 'signed', 'sent', 'resolved'] as const;
const PREFIX = 'chaos';
const STRATEGY = 'chaos';
const clock = systemClock();
const random = seededRandom('queue-chaos');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let own: OwnRedis;
let chain: SimChain;

beforeAll(async () => {
  if (!redisOk) return;
  await build({
    entryPoints: [fileURLToPath(new URL('./support/queue-worker-child.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: childBundle,
    external: ['better-sqlite3', 'bigint-buffer', 'msgpackr-extract'],
    logLevel: 'error',
  });
  own = await startOwnRedis({ fsync: 'always' });
  chain = await startSimChain({ seed: 'queue-chaos', faults: { dropRate: 0.1, lateRate: 0.1, failRate: 0.05, rpcErrorRate: 0.02 } });
}, 60_000);
afterAll(async () => {
  await chain?.close();
  await own?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One incarnation of the engine side: a queue executor and a portfolio per wallet, as the engine's order flow applies reports. */
interface EngineModel {
  readonly execs: Map<string, QueueExecutor>;
  readonly portfolios: Map<string, Portfolio>;
  /** How often each landed signature entered this incarnation's portfolios (restored or reported). */
  readonly applied: Map<string, number>;
  readonly pending: Set<string>;
  ignored: number;
}

async function startEngine(wallets: readonly string[]): Promise<EngineModel> {
  const m: EngineModel = { execs: new Map(), portfolios: new Map(), applied: new Map(), pending: new Set(), ignored: 0 };
  const count = (f: Fill): void => void m.applied.set(f.signature ?? '', (m.applied.get(f.signature ?? '') ?? 0) + 1);
  for (const wallet of wallets) {
    const exec = createQueueExecutor({ url: own.url, prefix: PREFIX, wallet, clock, consumer: 'chaos-engine', catchUpTimeoutMs: 120_000, retryDelayMs: 200 });
    const { landed } = await exec.catchUp();
    // As the live root does: cash is the wallet's balance once nothing is in flight; positions come from the journal.
    const fills = landed.flatMap((r) => (r.fill ? [r.fill] : []));
    const scratch = createPortfolio(0n);
    for (const f of fills) scratch.applyFill(STRATEGY, f);
    const portfolio = createPortfolio(chain.lamportsOf(wallet) - scratch.totals().cashLamports);
    for (const f of fills) {
      portfolio.applyFill(STRATEGY, f);
      count(f);
    }
    m.portfolios.set(wallet, portfolio);
    m.execs.set(wallet, exec);
    await exec.start((r: ExecutionReport) => {
      if (r.type === 'accepted') return;
      if (!m.pending.delete(r.intentId)) {
        m.ignored++;
        return;
      }
      if (r.type === 'filled') {
        portfolio.applyFill(STRATEGY, r.fill);
        count(r.fill);
      } else if (r.type === 'failed') portfolio.applyFailedFee(STRATEGY, chain.mint, r.feeLamports);
    });
  }
  return m;
}

interface Slot {
  child: ChildProcess | undefined;
  gen: number;
}

describe.skipIf(!redisOk)('scale-out chaos (real Redis with AOF, 3 worker processes, simulator ledger)', () => {
  it('survives 30+ worker SIGKILLs, a Redis SIGKILL and an engine restart: one landed tx per intent at most, ledger = portfolio', async () => {
    const keys = Array.from({ length: WALLETS }, (_, i) => chain.wallet(10 + i));
    const wallets = keys.map((k) => k.publicKey.toBase58());
    const files = keys.map((k, i) => {
      const file = join(dir, `wallet-${i}.yaml`);
      writeFileSync(file, workerDeploymentYaml({ name: `chaos-${i}`, chain, key: k, redisUrl: own.url, prefix: PREFIX }));
      return file;
    });

    let kills = 0;
    const killsAt = new Map<string, number>();
    const pointMissing = (): boolean => POINTS.some((p) => (killsAt.get(p) ?? 0) === 0);
    const unexpected: string[] = [];
    let finishing = false;
    let spawns = 0;
    const killedByTest = new WeakSet<ChildProcess>();
    /** Children that kill themselves at a named instant: the killer leaves them alone for a while. */
    const selfKilling = new WeakMap<ChildProcess, number>();
    const slots: Slot[] = Array.from({ length: SLOTS }, () => ({ child: undefined, gen: 0 }));
    const spawnInto = (slot: Slot, index: number): void => {
      const n = spawns++;
      // Every third child kills itself at the named instant with the fewest kills so far.
      const point = n % 3 === 1 ? [...POINTS].sort((a, b) => (killsAt.get(a) ?? 0) - (killsAt.get(b) ?? 0))[0] : undefined;
      const child = spawn(process.execPath, [childBundle], {
        env: {
          ...process.env,
          NODE_PATH: nodePath,
          REDIS_URL: own.url,
          FILES: files.join(','),
          HOLDER: `slot${index}-${slot.gen++}`,
          VALIDITY_BLOCKS: String(chain.validBlocks),
          ...(point ? { CRASH_AT: `${point}:1` } : {}),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
      slot.child = child;
      if (point) selfKilling.set(child, Date.now());
      child.on('exit', (code, signal) => {
        if (signal === 'SIGKILL') {
          kills++;
          const at = point && !killedByTest.has(child) ? point : 'timed';
          killsAt.set(at, (killsAt.get(at) ?? 0) + 1);
        } else if (!finishing) unexpected.push(`slot ${index} exited ${code ?? signal}: ${stderr.slice(-500)}`);
        if (!finishing) spawnInto(slot, index);
      });
    };
    slots.forEach((s, i) => spawnInto(s, i));

    let engine = await startEngine(wallets);
    const submitted: string[] = [];
    let redisKilled = false;
    let engineRestarted = false;
    // The killer: random slot, random moment.
    const killer = (async () => {
      while (kills < MIN_KILLS || pointMissing()) {
        await sleep(random.int(150, 700));
        const slot = slots[random.int(0, SLOTS - 1)]!;
        const c = slot.child;
        const since = c ? selfKilling.get(c) : undefined;
        if (since !== undefined && Date.now() - since < 8_000) continue;
        if (c && c.exitCode === null && c.signalCode === null) {
          killedByTest.add(c);
          c.kill('SIGKILL');
        }
      }
    })();
    // The feed: intents round-robin over the wallets; one Redis kill and one engine restart on the way.
    let n = 0;
    while (kills < MIN_KILLS || pointMissing() || submitted.length < MIN_INTENTS) {
      if (!redisKilled && kills >= 10) {
        redisKilled = true;
        await own.kill();
        await sleep(300);
        await own.restart();
      }
      if (!engineRestarted && kills >= 20) {
        engineRestarted = true;
        await Promise.all([...engine.execs.values()].map((e) => e.close())); // no drain: as if the process died
        engine = await startEngine(wallets);
      }
      const wallet = wallets[n % WALLETS]!;
      const id = `chaos-${n++}`;
      engine.pending.add(id);
      submitted.push(id);
      await engine.execs.get(wallet)!.submit({
        id,
        strategyId: STRATEGY,
        side: 'buy',
        mint: chain.mint,
        decimals: 6,
        spendLamports: (10_000_000n + BigInt(n)) as Lamports,
        slippageBps: 100 as Bps,
        priorityFeeLamports: 10_000n as Lamports,
        referencePrice: undefined,
        createdAt: clock.now() as UnixMs,
        reason: 'chaos',
      });
      await sleep(random.int(30, 120));
    }
    await killer;
    // Calm: the surviving workers finish everything, the engine applies every report.
    const end = Date.now() + 120_000;
    while (engine.pending.size > 0 && Date.now() < end) await sleep(50);
    finishing = true;
    await Promise.all(
      slots.map(
        (s) =>
          new Promise<void>((r) => {
            const c = s.child;
            if (!c || c.exitCode !== null || c.signalCode !== null) return r();
            c.once('exit', () => r());
            c.kill('SIGTERM');
          }),
      ),
    );
    await Promise.all([...engine.execs.values()].map((e) => e.close()));

    expect(engine.pending.size, 'intents without a terminal report').toBe(0);
    expect(unexpected, 'workers that died by themselves').toEqual([]);
    expect(kills).toBeGreaterThanOrEqual(30);
    for (const p of POINTS) expect(killsAt.get(p) ?? 0, `kills at ${p} (${JSON.stringify([...killsAt])})`).toBeGreaterThan(0);
    expect(redisKilled && engineRestarted).toBe(true);

    const redis = new Redis(own.url, { maxRetriesPerRequest: null });
    try {
      const owner = new Map<string, string>();
      let landedTotal = 0;
      for (const wallet of wallets) {
        const j = openRedisJournal({ redis, prefix: PREFIX, wallet });
        expect(await j.unresolved()).toEqual([]);
        const ids = submitted.filter((id) => Number(id.split('-')[1]) % WALLETS === wallets.indexOf(wallet));
        for (const id of ids) {
          const rec = await j.get(id);
          expect(rec, id).toBeDefined();
          for (const a of rec!.attempts) owner.set(a.signature, id);
          const landed = rec!.attempts.filter((a) => chain.landed(a.signature) !== undefined);
          expect(landed.length, `landed transactions of ${id}`).toBeLessThanOrEqual(1);
          const l = landed[0];
          const err = l ? chain.landed(l.signature)?.err : undefined;
          expect(rec!.state, id).toBe(l ? (err === null ? 'LANDED' : 'FAILED_ON_CHAIN') : rec!.state === 'DENIED' ? 'DENIED' : 'EXPIRED');
          if (l && err === null) {
            landedTotal++;
            expect(engine.applied.get(l.signature), `${l.signature} in the portfolio once`).toBe(1);
          }
        }
        const portfolio = engine.portfolios.get(wallet)!;
        expect(portfolio.totals().cashLamports, `SOL of ${wallet}`).toBe(chain.lamportsOf(wallet));
        expect(portfolio.position(STRATEGY, chain.mint)?.tokenRaw ?? 0n, `tokens of ${wallet}`).toBe(chain.tokensOf(wallet));
      }
      for (const sig of chain.successfulSwaps()) expect(owner.has(sig), `landed but not journaled: ${sig}`).toBe(true);
      const takeovers = (await Promise.all(wallets.map((w) => readLeaseStats(redis, PREFIX, w)))).reduce((t, l) => t + l.takeovers, 0);
      expect(takeovers, 'leases taken over from killed workers').toBeGreaterThan(0);
      console.log(JSON.stringify({ kills, killsAt: Object.fromEntries(killsAt), intents: submitted.length, landedTotal, takeovers, ignored: engine.ignored }));
      expect(landedTotal).toBeGreaterThanOrEqual(MIN_INTENTS / 3); // the run traded, not just crashed
    } finally {
      redis.disconnect();
    }
  }, 300_000);
});
