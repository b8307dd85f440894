/**
 * Expiry needs a fresh answer: the live executor talks to the simulator's JSON-RPC through a
 * loopback HTTP proxy that plays an RPC node behind a load balancer lagging 1 000 slots: its
 * signature statuses come from an old slot and know nothing. The swap lands at once; the executor
 * must never call it expired (and rebuild, landing a second one) on such an answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAMPORTS_PER_SOL } from '@solana/web3.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createRpcClient, createSwapClient } from '../../src/client/index.js';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport } from '../../src/engine/orders/execution-port.js';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
import { MAX_STALE_ANSWERS } from '../../src/executors/live/confirm-attempt.js';
import { createLiveExecutor } from '../../src/executors/live/live-executor.js';
import { keypairSigner } from '../../src/executors/signer/signer.js';
import { API_KEY, startHarness, type Harness } from '../sim-ledger/harness.js';
import { MEMO_PROGRAM, runSimUntil } from './support/sim-live.js';

const LAG_SLOTS = 1_000;

interface LaggingProxy {
  readonly url: string;
  lagging: boolean;
  /** getSignatureStatuses answers rewritten so far. */
  rewritten: number;
  close(): Promise<void>;
}

/** JSON-RPC proxy: while `lagging`, getSignatureStatuses answers come from LAG_SLOTS slots back and know no signature. */
async function startLaggingProxy(target: string): Promise<LaggingProxy> {
  const proxy: LaggingProxy & { server?: Server } = {
    url: '',
    lagging: true,
    rewritten: 0,
    close: () => new Promise<void>((r) => proxy.server?.close(() => r())),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      void fetch(new URL(req.url ?? '/', target), { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (up) => {
        let text = await up.text();
        const call = JSON.parse(body) as { method?: string };
        if (proxy.lagging && call.method === 'getSignatureStatuses') {
          const answer = JSON.parse(text) as { result?: { context: { slot: number }; value: unknown[] } };
          if (answer.result) {
            answer.result.context.slot = Math.max(0, answer.result.context.slot - LAG_SLOTS);
            answer.result.value = answer.result.value.map(() => null);
            text = JSON.stringify(answer);
            proxy.rewritten++;
          }
        }
        res.writeHead(up.status, { 'content-type': 'application/json' });
        res.end(text);
      });
    });
  });
  proxy.server = server;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  return Object.assign(proxy, { url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}` });
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function setup(): Promise<{
  sim: Harness;
  proxy: LaggingProxy;
  reports: ExecutionReport[];
  errors: unknown[];
  executor: ReturnType<typeof createLiveExecutor>;
  journal: ReturnType<typeof openSqliteJournal>;
  builds: () => number;
  runUntil: (cond: () => boolean) => Promise<void>;
  mint: string;
  wallet: string;
}> {
  const sim = await startHarness({ validBlocks: 60 });
  cleanup.push(() => sim.stop());
  const mint = sim.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
  const wallet = await sim.wallet(10);
  const proxy = await startLaggingProxy(sim.service.urls['rpc'] ?? '');
  cleanup.push(() => proxy.close());
  const dir = mkdtempSync(join(tmpdir(), 'chainpilot-lag-'));
  const journal = openSqliteJournal({ path: join(dir, 'journal.sqlite') });
  const rpc = createRpcClient({ url: proxy.url, apiKey: API_KEY, timeoutMs: 2_000 });
  const swapClient = createSwapClient({ url: sim.service.urls['swap'] ?? '', timeoutMs: 5_000 });
  let builds = 0;
  const reports: ExecutionReport[] = [];
  const errors: unknown[] = [];
  const executor = createLiveExecutor({
    rpc,
    swap: {
      buildSwap: (req, o) => {
        builds++;
        return swapClient.buildSwap(req, o);
      },
    },
    signer: keypairSigner(wallet),
    journal,
    clock: sim.clock,
    settings: {
      maxTradeLamports: 2n * BigInt(LAMPORTS_PER_SOL),
      maxDayLamports: 9n * BigInt(LAMPORTS_PER_SOL),
      allowedPrograms: [MEMO_PROGRAM],
      blockhashValidityBlocks: 60,
      expiryMarginBlocks: 2,
      maxIntentAgeMs: 3_600_000,
      maxRebuildAgeMs: 3_600_000,
    },
    onError: (e) => void errors.push(e),
  });
  cleanup.push(async () => {
    await executor.stop(AbortSignal.abort());
    await journal.close();
    await rpc.close();
    await swapClient.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const runUntil = (cond: () => boolean): Promise<void> => runSimUntil(sim, cond, 5_000, 4);
  const started = executor.start((r) => reports.push(r));
  await runUntil(() => true);
  await started;
  return { sim, proxy, reports, errors, executor, journal, builds: () => builds, runUntil, mint, wallet: wallet.publicKey.toBase58() };
}

const buy = (id: string, mint: string, now: number) => ({
  id,
  strategyId: 'lag',
  side: 'buy' as const,
  mint,
  decimals: 6,
  spendLamports: 100_000_000n as Lamports,
  slippageBps: 300 as Bps,
  priorityFeeLamports: 10_000n as Lamports,
  referencePrice: undefined,
  createdAt: now as UnixMs,
  reason: 'test',
});

describe('expiry decided only from a fresh status answer', () => {
  it('asks again while the answers lag, and reports the landed swap once fresh answers come: one transaction, one fill', async () => {
    const t = await setup();
    await t.executor.submit(buy('lag-1', t.mint, t.sim.clock.now()));
    await t.runUntil(() => t.executor.counters()['stale-status'] >= 3);
    expect(t.proxy.rewritten).toBeGreaterThan(3);
    expect(t.reports.filter((r) => r.intentId === 'lag-1').map((r) => r.type)).toEqual(['accepted']);
    t.proxy.lagging = false;
    await t.runUntil(() => t.reports.some((r) => r.intentId === 'lag-1' && r.type !== 'accepted'));
    const filled = t.reports.find((r) => r.type === 'filled');
    expect(filled?.type).toBe('filled');
    expect(t.builds()).toBe(1);
    expect((await t.journal.get('lag-1'))?.attempts).toHaveLength(1);
    const onChain = t.sim.ledger.tokenAccountsByOwner(t.wallet, t.mint).reduce((n, a) => n + Buffer.from(a.data).readBigUInt64LE(64), 0n);
    expect(filled?.type === 'filled' && filled.fill.tokenAmount).toBe(onChain);
  });

  it('gives up with LIVE_EXPIRY_UNPROVEN after the bounded re-asks, leaving the intent SENT and never rebuilt', async () => {
    const t = await setup();
    await t.executor.submit(buy('lag-2', t.mint, t.sim.clock.now()));
    await t.runUntil(() => t.errors.length > 0);
    expect(t.errors[0]).toMatchObject({ code: 'LIVE_EXPIRY_UNPROVEN', retry: 'retryable' });
    expect(t.executor.counters()['stale-status']).toBe(MAX_STALE_ANSWERS);
    expect(await t.journal.get('lag-2')).toMatchObject({ state: 'SENT', done: false });
    expect(t.builds()).toBe(1);
    expect(t.reports.filter((r) => r.intentId === 'lag-2').map((r) => r.type)).toEqual(['accepted']);
  });
});
