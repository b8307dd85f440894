/**
 * A live deployment restarted on the same journal against the same chain keeps managing what the
 * wallet holds: positions, cost basis and exit rules come back from the journal's landed fills, and
 * the portfolio still equals the wallet on chain after the second run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { createRpcClient } from '../../src/client/index.js';
import { silentLogger, sleep } from '../../src/core/index.js';
import { runLive } from '../../src/runtime/shell/run-live.js';
import { defaultSimServices } from '../../src/runtime/shell/sim-runtime.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { readChain, type ChainCheck } from './live-chain.js';
import { liveSimOnRemote } from './support/live-sim-remote.js';

const KEY = 'restore-test-key-41d7';

let sim: RunningSimulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('live mode across a restart', () => {
  it('restores open positions from the journal, so the portfolio equals the wallet on chain after the second run', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-live-restore-'));
    const walletPath = join(dir, 'wallet.json');
    const wallet = writeNewKeypairFile(walletPath);
    sim = await startSimulator({ seed: 23, speed: 60, apiKey: KEY, services: defaultSimServices([{ address: wallet, lamports: 10_000_000_000n }]) });
    const store = join(dir, 'journal.sqlite');
    const file = join(dir, 'live.yaml');
    writeFileSync(file, liveSimOnRemote(sim.urls, walletPath, store));
    const env = { K: KEY };

    // Earlier runs stop as soon as the wallet holds tokens on chain (at most 40 s each). A run can
    // still sell everything while draining its in-flight intents, so up to four runs go on the
    // same journal and chain until one ends holding a position across the restart.
    const rpc = createRpcClient({ url: sim.urls['rpc'] ?? '', apiKey: KEY });
    const holds = async (): Promise<boolean> => {
      const r = (await rpc.call('getTokenAccountsByOwner', [wallet, { programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' }, { encoding: 'base64' }])) as {
        value: { account: { data: [string, string] } }[];
      };
      return r.value.some((a) => Buffer.from(a.account.data[0], 'base64').readBigUInt64LE(64) > 0n);
    };
    let first: ChainCheck | undefined;
    let held: [string, bigint][] = [];
    for (let run = 0; run < 4 && held.length === 0; run++) {
      const stopFirst = new AbortController();
      const watcher = (async () => {
        while (!stopFirst.signal.aborted) {
          if (await holds()) break;
          await sleep(200, stopFirst.signal).catch(() => undefined);
        }
        stopFirst.abort();
      })();
      await runLive({
        file,
        live: true,
        durationMs: 40_000,
        signal: stopFirst.signal,
        seed: 4 + run,
        env,
        out: () => undefined,
        log: silentLogger(),
        inspect: async (v) => void (first = await readChain(v, store)),
      });
      stopFirst.abort();
      await watcher;
      held = [...first!.tokensOnChain].filter(([, v]) => v > 0n);
    }
    await rpc.close();
    expect(held.length, 'the first run leaves tokens in the wallet').toBeGreaterThan(0);

    const printed: string[] = [];
    let second: ChainCheck | undefined;
    await runLive({
      file,
      live: true,
      durationMs: 1_500,
      seed: 9,
      env,
      out: (t) => printed.push(t),
      log: silentLogger(),
      inspect: async (v) => void (second = await readChain(v, store)),
    });
    const landedBefore = first!.intents.filter((r) => r.state === 'LANDED').length;
    expect(printed.join('')).toContain(`restored ${landedBefore} fill(s) from the journal`);

    // Without the restore the second run would not know the first run's holdings: the wallet would
    // hold tokens the portfolio lacks.
    const nonZero = (m: Map<string, bigint>): [string, bigint][] => [...m].filter(([, v]) => v > 0n).sort(([a], [b]) => a.localeCompare(b));
    expect(nonZero(second!.portfolioTokens)).toEqual(nonZero(second!.tokensOnChain));
    expect(second!.cashLamports).toBe(second!.walletLamports);
  }, 90_000);
});
