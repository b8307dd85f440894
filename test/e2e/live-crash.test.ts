/**
 * Crash test at the deployment level: `runLive` (what `chainpilot run FILE --live` calls) in a child process, trading on a
 * simulator that outlives it, is killed with SIGKILL at random moments while it trades and
 * restarted on the same journal, then run once more to a clean stop. The chain must show at most
 * one transaction per intent, every landed transaction must be in the journal with its exact
 * fill, and the wallet's SOL must equal its funding minus what the journal says moved. (The
 * executor-level 50-kill test with named instants is test/executors/crash-recovery-sim.test.ts.)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { createRpcClient } from '../../src/client/index.js';
import { seededRandom } from '../../src/core/index.js';
import { defaultSimServices } from '../../src/runtime/shell/sim-runtime.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { liveSimOnRemote } from './support/live-sim-remote.js';

const KEY = 'crash-test-key-9b2c';
const FUND = 10_000_000_000n;
let dir = '';
let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

/** Bundles the child (CommonJS, native modules external) so each restart is a plain `node` start. */
async function bundleChild(outfile: string): Promise<void> {
  await build({
    entryPoints: [fileURLToPath(new URL('./support/live-child.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    external: ['better-sqlite3', 'bigint-buffer', 'litesvm', 'tsx', 'pino-pretty'],
    logLevel: 'error',
  });
}

/** Runs `runLive` in a child; with `killAfterStartMs`, SIGKILLs it that long after it printed its start line. */
function runChild(
  bundle: string,
  file: string,
  durationMs?: number,
  killAfterStartMs?: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = {
      ...process.env,
      K: KEY,
      FILE: file,
      NODE_PATH: fileURLToPath(new URL('../../node_modules', import.meta.url)),
      ...(durationMs !== undefined ? { DURATION_MS: String(durationMs) } : {}),
    };
    const child = spawn(process.execPath, [bundle], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let armed = false;
    const guard = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      if (killAfterStartMs !== undefined && !armed && stdout.includes('chainpilot run --live:')) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), killAfterStartMs);
      }
    });
    child.stderr.on('data', (b: Buffer) => void (stderr += b.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

interface IntentRow {
  id: string;
  state: string;
  fill_json: string | null;
  fee_lamports: string | null;
}

describe('live mode deployment under SIGKILL', () => {
  it('killed 5 times while trading and restarted on the same journal, lands no intent twice and loses no landed swap', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-live-crash-'));
    const walletPath = join(dir, 'wallet.json');
    const wallet = writeNewKeypairFile(walletPath);
    sim = await startSimulator({ seed: 21, speed: 60, apiKey: KEY, services: defaultSimServices([{ address: wallet, lamports: FUND }]) });
    const store = join(dir, 'journal.sqlite');
    const file = join(dir, 'live.yaml');
    writeFileSync(file, liveSimOnRemote(sim.urls, walletPath, store).replace('statusInterval: 5s', 'statusInterval: 1s'));
    expect(readFileSync(file, 'utf8')).toContain('  remote:');

    const bundle = join(dir, 'live-child.cjs');
    await bundleChild(bundle);
    const random = seededRandom(77);
    for (let k = 0; k < 5; k++) {
      const r = await runChild(bundle, file, undefined, 300 + Math.floor(random.next() * 1_500));
      expect(r.signal, r.stderr).toBe('SIGKILL');
    }
    const last = await runChild(bundle, file, 3_000);
    expect(last.code, `${last.stdout.slice(-1500)}\n--- stderr\n${last.stderr.slice(-1500)}`).toBe(0);
    expect(last.stdout).toMatch(/0 intent\(s\) left for the next start to reconcile/);

    const db = new Database(store, { readonly: true });
    const intents = db.prepare('SELECT id, state, fill_json, fee_lamports FROM intents').all() as IntentRow[];
    const attempts = db.prepare('SELECT intent_id, signature FROM attempts').all() as { intent_id: string; signature: string }[];
    db.close();
    const rpc = createRpcClient({ url: sim.urls['rpc'] ?? '', apiKey: KEY });
    try {
      const { value: statuses } = await rpc.getSignatureStatuses(
        attempts.map((a) => a.signature),
        { searchTransactionHistory: true },
      );
      const onChain = new Map<string, string[]>();
      statuses.forEach((s, i) => {
        if (s === null) return;
        const a = attempts[i]!;
        onChain.set(a.intent_id, [...(onChain.get(a.intent_id) ?? []), a.signature]);
      });
      expect(intents.filter((r) => r.state === 'LANDED').length).toBeGreaterThan(0);
      for (const r of intents) {
        expect(onChain.get(r.id)?.length ?? 0, `intent ${r.id}`).toBeLessThanOrEqual(1);
        const landedHere = r.state === 'LANDED' || r.state === 'FAILED_ON_CHAIN';
        expect(onChain.has(r.id), `intent ${r.id} is ${r.state}`).toBe(landedHere);
      }
      // The wallet moved exactly what the journal's fills and failed fees say.
      let expected = FUND;
      for (const r of intents) {
        if (r.state === 'FAILED_ON_CHAIN') expected -= BigInt(r.fee_lamports ?? '0');
        if (r.state !== 'LANDED') continue;
        const f = JSON.parse(r.fill_json ?? '{}') as { side: string; solAmount: string; feeLamports: string };
        expected += f.side === 'buy' ? -BigInt(f.solAmount) - BigInt(f.feeLamports) : BigInt(f.solAmount) - BigInt(f.feeLamports);
      }
      expect((await rpc.getBalance(wallet, { commitment: 'confirmed' })).value).toBe(expected);
    } finally {
      await rpc.close();
    }
  }, 120_000);
});
