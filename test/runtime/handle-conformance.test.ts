/**
 * The deployment handle against the shared Lifecycle conformance suite
 * (test/helpers/lifecycle-conformance.ts): a paper deployment on the embedded simulator; a stop
 * during a start that never settles (an executor whose start never answers: a narrow fake); a stop
 * whose halt never settles (a feed connection whose release never answers); and a stop during a
 * slow live reconciliation on the real simulator's ledger, its RPC stalled by a proxy on loopback.
 * Each stop returns by its deadline (the run clock is a manual clock the test moves; the halt's
 * grace is wall time) and says what it abandoned.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { describe, expect } from 'vitest';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { loadDeployment } from '../../src/config/index.js';
import { base58Text } from '../../src/core/base58.js';
import { manualClock, type Bps, type Lamports, type UnixMs } from '../../src/core/index.js';
import type { Executor, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { createDeployment, type RuntimeDeps, type RuntimeHandle } from '../../src/runtime/handle/create-deployment.js';
import type { DeploymentHealth, FeedConnection, ShutdownReport } from '../../src/runtime/handle/deployment-handle.js';
import { openDeploymentStore } from '../../src/runtime/store/deployment-store.js';
import { defaultSimServices } from '../../src/runtime/shell/sim-runtime.js';
import { startSimulator } from '../../src/sim/start-simulator.js';
import { liveSimOnRemote } from '../e2e/support/live-sim-remote.js';
import { lifecycleConformance } from '../helpers/lifecycle-conformance.js';
import { startStallProxy, type StallProxy } from '../helpers/stall-proxy.js';
import { paperSimYaml, tempDir, until } from './helpers.js';

const START_AT = Date.UTC(2026, 10, 2, 12);

/** The mode's executor for a start that never settles: its `start` is never answered. */
function neverStartingExecutor(): Executor & { asked: Promise<void> } {
  let asked!: () => void;
  return {
    asked: new Promise<void>((r) => (asked = r)),
    start: () => {
      asked();
      return new Promise<void>(() => undefined);
    },
    submit: () => Promise.resolve(),
    stop: () => Promise.resolve(),
  };
}

/** A narrow fake connection (feed open, no frames) whose `release` is answered only by `free()`. */
function stuckConnection(): FeedConnection & { free(): void } {
  let free!: () => void;
  const released = new Promise<void>((r) => (free = r));
  return {
    feed: { subscribe: () => () => undefined, onGap: () => () => undefined },
    data: { get: () => Promise.reject(new Error('no REST in this test')) },
    watch: { onEvent: () => () => undefined, state: 'open' },
    release: () => released,
    free,
  };
}

/** A handle on the shipped paper-sim deployment, in a temp dir its cleanup removes. */
function paperHandle(deps: RuntimeDeps): { part: RuntimeHandle; remove: () => void } {
  const tmp = tempDir('cp-handle-conf-');
  return { part: createDeployment(loadDeployment(tmp.write('paper.yaml', paperSimYaml())), { mode: 'paper', seed: 3, ...deps }), remove: () => tmp.remove() };
}

describe('the deployment handle (paper, embedded simulator)', () => {
  lifecycleConformance<ShutdownReport, DeploymentHealth>({
    make: () => {
      const { part, remove } = paperHandle({ speed: 'max' });
      return Promise.resolve({ part, cleanup: remove });
    },
    startOnce: 'RUNTIME_HANDLE_STATE',
    slowStart: {
      drainMs: 2_000,
      what: 'a start whose executor never answers',
      make: () => {
        const clock = manualClock(START_AT);
        const executor = neverStartingExecutor();
        const { part, remove } = paperHandle({ simulatorClock: clock, executor });
        return Promise.resolve({
          part,
          inStart: () => executor.asked,
          pastDeadline: (ms) => clock.advance(ms),
          abandonedIn: (r) => {
            expect(r.abandoned).toEqual([expect.stringMatching(/^start: starting the engine/)]);
            expect(r.intents).toEqual([]);
          },
          cleanup: remove,
        });
      },
    },
    hungHalt: {
      drainMs: 1_000,
      make: () => {
        const clock = manualClock(START_AT);
        const connection = stuckConnection();
        const { part, remove } = paperHandle({ clock, connection, haltGraceMs: 100 });
        return Promise.resolve({
          part,
          running: () => until(() => part.health().state === 'running', 'the handle running'),
          pastDeadline: async (ms) => {
            // the drain (nothing in flight) ends in the promise jobs after the stop: then the run clock passes the deadline
            await new Promise((r) => setImmediate(r));
            clock.advance(ms);
          },
          abandonedIn: (r) => expect(r.abandoned).toEqual([expect.stringMatching(/^halt: /)]),
          cleanup: () => {
            connection.free();
            remove();
          },
        });
      },
    },
    timeoutMs: 30_000,
  });
});

const KEY = 'handle-conformance-key-5c1e';

/** A SIGNED intent of an earlier run in the journal at `store`: the next start must confirm it on chain. */
async function journalSignedIntent(store: string, wallet: string, at: UnixMs): Promise<void> {
  const s = openDeploymentStore({ path: store, deployment: 'live-sim', wallet });
  try {
    const intent: OrderIntent = {
      id: 'int_earlier_run_1',
      strategyId: 'curve-momentum',
      side: 'buy',
      mint: Keypair.generate().publicKey.toBase58(),
      decimals: 6,
      spendLamports: 100_000_000n as Lamports,
      slippageBps: 1_000 as Bps,
      priorityFeeLamports: 10_000n as Lamports,
      referencePrice: undefined,
      createdAt: at,
      reason: 'left in flight by an earlier run',
    };
    await s.journal.create(intent, { spendLamports: 110_000_000n, day: new Date(at).toISOString().slice(0, 10) }, at);
    await s.journal.markBuilt(intent.id, at);
    await s.journal.recordSigned(
      intent.id,
      {
        signature: base58Text(new Uint8Array(64).fill(7)),
        txBase64: Buffer.alloc(200, 1).toString('base64'),
        blockhash: Keypair.generate().publicKey.toBase58(),
        expiryBlockHeight: 1_000_000,
        slippageBps: 1_000,
      },
      at,
    );
  } finally {
    await s.close();
  }
}

/**
 * config/live-sim.yaml on a simulator with its ledger, on one manual clock, its wallet funded; `rpcVia`
 * puts something between the deployment and the simulator's RPC. `cleanup` stops the simulator and removes the dir.
 */
async function liveOnSimulator(o: { rpcVia?: (rpc: URL) => Promise<string>; journal?: (store: string, wallet: string) => Promise<void> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cp-handle-live-'));
  const walletPath = join(dir, 'wallet.json');
  const wallet = writeNewKeypairFile(walletPath);
  const clock = manualClock(START_AT);
  const sim = await startSimulator({ seed: 5, clock, apiKey: KEY, services: defaultSimServices([{ address: wallet, lamports: 10_000_000_000n }]) });
  const store = join(dir, 'journal.sqlite');
  await o.journal?.(store, wallet);
  const rpc = o.rpcVia ? await o.rpcVia(new URL(sim.urls['rpc'] ?? '')) : sim.urls['rpc'];
  const file = join(dir, 'live.yaml');
  writeFileSync(file, liveSimOnRemote({ ...sim.urls, ...(rpc !== undefined ? { rpc } : {}) }, walletPath, store));
  const part = createDeployment(loadDeployment(file, { env: { K: KEY } }), { mode: 'live', confirmation: { live: true }, clock, seed: 5 });
  const cleanup = async (): Promise<void> => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { part, clock, cleanup };
}

describe('the deployment handle (live, reconciling on the simulator ledger)', () => {
  lifecycleConformance<ShutdownReport, DeploymentHealth>({
    make: async () => {
      const { part, cleanup } = await liveOnSimulator();
      return { part, cleanup };
    },
    startOnce: 'RUNTIME_HANDLE_STATE',
    slowStart: {
      drainMs: 5_000,
      what: 'a live reconciliation whose chain reads stall',
      make: async () => {
        let proxy: StallProxy | undefined;
        const { part, clock, cleanup } = await liveOnSimulator({
          journal: (store, wallet) => journalSignedIntent(store, wallet, START_AT as UnixMs),
          // the RPC behind a proxy that swallows every answer on the connection that sends the intent's transaction
          rpcVia: async (rpc) => {
            proxy = await startStallProxy(Number(rpc.port));
            proxy.arm('sendTransaction');
            return `http://127.0.0.1:${proxy.port}${rpc.pathname}`;
          },
        });
        const stalled = proxy!;
        return {
          part,
          inStart: () => until(() => stalled.stalled(), "reconciliation's send of the intent's transaction"),
          pastDeadline: (ms) => clock.advance(ms),
          abandonedIn: (r) => expect(r.abandoned).toEqual([expect.stringMatching(/^start: reconciling the journal \(1 unresolved intent\)/)]),
          cleanup: async () => {
            stalled.release();
            await stalled.close();
            await cleanup();
          },
        };
      },
    },
    timeoutMs: 40_000,
  });
});
