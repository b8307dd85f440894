/**
 * Clean shutdown as a user meets it: the `chainpilot` command in a child process. SIGTERM during
 * live intents on the simulator ledger drains them, reports each one, exits 0, and the restart on
 * the same journal reconciles with nothing landed twice; a second signal exits at once with 130;
 * a strategy cannot end the process.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { createRpcClient } from '../../src/client/index.js';
import { ledgerServices } from '../../src/sim/ledger/index.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { tempDir, type TempDir } from '../runtime/helpers.js';
import { liveSimOnRemote } from './support/live-sim-remote.js';

const KEY = 'shutdown-test-key-41c';
let tmp: TempDir | undefined;
let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
  tmp?.remove();
  tmp = undefined;
});

interface Child {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `chainpilot ARGS`; `onOutput` sees stdout as it grows and may send signals. Killed after
 * `guardMs` (a hang fails the test instead of stalling the suite; generous, as a loaded machine
 * takes many seconds to start a `tsx` child).
 */
function cli(args: string[], onOutput?: (stdout: string, kill: (s: NodeJS.Signals) => void) => void, guardMs = 150_000): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/chainpilot.js', ...args], { env: { ...process.env, K: KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const guard = setTimeout(() => child.kill('SIGKILL'), guardMs);
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      onOutput?.(stdout, (s) => child.kill(s));
    });
    child.stderr.on('data', (b: Buffer) => void (stderr += b.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('chainpilot shutdown', () => {
  it('drains live intents on SIGTERM, reports each one, exits 0, and the restart reconciles with nothing landed twice', async () => {
    tmp = tempDir('cp-shutdown-');
    const walletPath = `${tmp.dir}/wallet.json`;
    const wallet = writeNewKeypairFile(walletPath);
    // Confirmation takes 25 slots (10 simulated seconds, 1 s of wall time at 10x): intents stay in flight long enough to be caught.
    sim = await startSimulator({
      seed: 31,
      speed: 10,
      apiKey: KEY,
      services: [ledgerServices({ confirmAfterSlots: 25, onLedger: (l) => void l.airdrop(wallet, 10_000_000_000n) })],
    });
    const store = `${tmp.dir}/journal.sqlite`;
    const file = tmp.write('live.yaml', liveSimOnRemote(sim.urls, walletPath, store).replace('statusInterval: 5s', 'statusInterval: 100ms'));

    let sent = false;
    const first = await cli(['run', file, '--live'], (out, kill) => {
      if (!sent && /pending [1-9]/.test(out)) {
        sent = true;
        kill('SIGTERM');
      }
    });
    const diag = `${first.stdout.slice(-2000)}\n--- stderr\n${first.stderr.slice(-2000)}`;
    expect(sent, diag).toBe(true);
    expect(first.code, diag).toBe(0);
    expect(first.stdout).toContain('SIGTERM: stopping new intents and draining those in flight');
    const report = /shutdown: (\d+) intent\(s\) were in flight\n((?: {2}.*\n)+)/.exec(first.stdout);
    expect(report, diag).not.toBeNull();
    const rows = report![2]!.trim().split('\n');
    expect(rows.length).toBe(Number(report![1]));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatch(/ (buy|sell) \S+ (landed|failed|expired|rejected) \(/);
    expect(first.stdout).toContain('summary over');
    expect(first.stdout).toMatch(/0 intent\(s\) left for the next start to reconcile/);

    const second = await cli(['run', file, '--live', '--duration', '2s']);
    expect(second.code, second.stderr.slice(-1500)).toBe(0);
    expect(second.stdout).toMatch(/0 intent\(s\) left for the next start to reconcile/);

    const db = new Database(store, { readonly: true });
    const intents = db.prepare('SELECT id, state FROM intents').all() as { id: string; state: string }[];
    const attempts = db.prepare('SELECT intent_id, signature FROM attempts').all() as { intent_id: string; signature: string }[];
    db.close();
    const rpc = createRpcClient({ url: sim.urls['rpc'] ?? '', apiKey: KEY });
    try {
      const { value } = await rpc.getSignatureStatuses(
        attempts.map((a) => a.signature),
        { searchTransactionHistory: true },
      );
      const onChain = new Map<string, number>();
      value.forEach((s, i) => {
        if (s !== null) onChain.set(attempts[i]!.intent_id, (onChain.get(attempts[i]!.intent_id) ?? 0) + 1);
      });
      expect(intents.some((r) => r.state === 'LANDED')).toBe(true);
      for (const r of intents) {
        expect(onChain.get(r.id) ?? 0, `intent ${r.id}`).toBeLessThanOrEqual(1);
        expect(onChain.has(r.id), `intent ${r.id} is ${r.state}`).toBe(r.state === 'LANDED' || r.state === 'FAILED_ON_CHAIN');
      }
    } finally {
      await rpc.close();
    }
  }, 360_000);

  it('exits at once with 130 on a second signal while the drain waits', async () => {
    tmp = tempDir('cp-shutdown-');
    const file = tmp.write(
      'slow.yaml',
      readFileSync('config/paper-sim.yaml', 'utf8')
        .replace(/\n {2}decisionLog: .*\n/, '\n  statusInterval: 100ms\n')
        .replace('latency: 250ms', 'latency: 1m') + 'shutdown:\n  drain: 1h\n',
    );
    let signals = 0;
    const r = await cli(['paper', file], (out, kill) => {
      if (signals === 0 && /pending [1-9]/.test(out)) {
        signals++;
        kill('SIGINT');
      } else if (signals === 1 && out.includes('SIGINT: stopping')) {
        signals++;
        kill('SIGINT');
      }
    });
    expect(signals, r.stdout.slice(-1000)).toBe(2);
    expect(r.code).toBe(130);
    expect(r.stdout).toContain('SIGINT again: exiting now');
  }, 180_000);

  it('does not let a strategy end the process, neither when imported nor from a callback', async () => {
    tmp = tempDir('cp-shutdown-');
    const imported = tmp.write(
      'imported.yaml',
      ['version: 1', 'name: hostile', 'strategies:', `  - use: ${process.cwd()}/test/e2e/fixtures/exit-on-import.ts`, ''].join('\n'),
    );
    const v = await cli(['validate', imported]);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain('process.exit(0) was called by user code; a strategy cannot end the process');

    const callback = tmp.write(
      'callback.yaml',
      [
        'version: 1',
        'name: hostile',
        'endpoints:',
        '  simulator:',
        '    speed: max',
        'strategies:',
        `  - use: ${process.cwd()}/test/e2e/fixtures/exit-on-launch.ts`,
        'telemetry:',
        '  logLevel: silent',
        '',
      ].join('\n'),
    );
    const p = await cli(['paper', callback, '--duration', '2s']);
    // the process ran on to its summary; a strategy the error policy halted makes the exit status 1 (issue 41)
    expect(p.code, p.stderr).toBe(/ENGINE_STRATEGY_HALTED: strategy exit-on-launch halted/.test(p.stdout) ? 1 : 0);
    expect(p.stdout).toMatch(/strategy errors [1-9]/);
    expect(p.stdout).toContain('summary over');
  }, 300_000);
});
