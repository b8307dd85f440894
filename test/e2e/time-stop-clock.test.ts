/**
 * Time stops run on the deployment's clock (issue 29: with a remote simulator at speed 60, fills
 * were stamped with the chain's block time, minutes ahead of the wall clock, and positions past
 * `timeStop` sold nothing). A live deployment on a fast remote simulator whose chain runs 60 times
 * faster than the wall: every position opened long enough before the end is sold by its time stop,
 * measured from when the engine saw the fill on the run's (wall) clock.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { silentLogger } from '../../src/core/index.js';
import { runLive } from '../../src/runtime/shell/run-live.js';
import { defaultSimServices } from '../../src/runtime/shell/sim-runtime.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { liveSimOnRemote } from './support/live-sim-remote.js';

const KEY = 'time-stop-key-29a1';
const TIME_STOP_MS = 3_000;

let sim: RunningSimulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

interface Line {
  kind: string;
  at: number;
  side?: string;
  mint?: string;
  strategyId?: string;
  reason?: string;
  tokenAmount?: string;
}

describe('time stops on a fast remote simulator', () => {
  it('sells every position held past timeStop on the wall clock, though the chain stamps fills minutes ahead', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-time-stop-'));
    const walletPath = join(dir, 'wallet.json');
    const wallet = writeNewKeypairFile(walletPath);
    sim = await startSimulator({ seed: 29, speed: 60, apiKey: KEY, services: defaultSimServices([{ address: wallet, lamports: 10_000_000_000n }]) });
    const decisions = join(dir, 'decisions.jsonl');
    const file = join(dir, 'live.yaml');
    // only the time stop exits: no take-profit or stop-loss sells in the way
    const yaml = liveSimOnRemote(sim.urls, walletPath, join(dir, 'journal.sqlite'))
      .replace(/ {6}takeProfit:\n {8}- .*\n {6}stopLossBps: 2000\n {6}timeStop: 5m/, '      timeStop: 3s')
      .replace('telemetry:\n', `telemetry:\n  decisionLog: ${decisions}\n`);
    expect(yaml).toContain('      timeStop: 3s');
    writeFileSync(file, yaml);

    const startedAt = Date.now();
    const r = await runLive({ file, live: true, durationMs: 20_000, seed: 5, env: { K: KEY }, out: () => undefined, log: silentLogger() });
    const endedAt = Date.now();
    expect(r.exitCode, r.problem).toBe(0);

    const lines = readFileSync(decisions, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
    const fills = lines.filter((l) => l.kind === 'fill' && l.side === 'buy' && l.strategyId === 'curve-momentum');
    expect(fills.length, 'curve-momentum bought something').toBeGreaterThan(0);
    // the chain's clock runs ahead of the run's: that is the condition under test
    const chainAhead = sim.clock.now() - endedAt;
    expect(chainAhead).toBeGreaterThan(5 * 60_000);
    // every decision is stamped on the run's clock (wall time of this process), not the chain's
    for (const l of lines) expect(l.at).toBeLessThanOrEqual(endedAt);
    const timeStops = lines.filter((l) => l.kind === 'intent' && l.side === 'sell' && l.reason === `time stop after ${TIME_STOP_MS} ms`);
    // a buy filled early enough (time stop plus a generous margin for the sell's own trip) was sold by its time stop
    const early = fills.filter((f) => f.at < endedAt - TIME_STOP_MS - 8_000 && f.at >= startedAt);
    // the strategy's own exits (take profit, trailing stop) may close a position before its time stop: only a
    // position still held when its time stop is due must be sold by it
    const heldAt = (f: Line, at: number): bigint =>
      lines
        .filter((l) => l.kind === 'fill' && l.mint === f.mint && l.at >= f.at && l.at <= at)
        .reduce((sum, l) => sum + (l.side === 'buy' ? 1n : -1n) * BigInt(l.tokenAmount ?? '0'), 0n);
    for (const f of early) {
      if (heldAt(f, f.at + TIME_STOP_MS) <= 0n) continue;
      // sold by its time stop, or by a strategy exit already in flight when the time stop fell due
      const sold =
        timeStops.find((s) => s.mint === f.mint && s.at >= f.at + TIME_STOP_MS) ??
        lines.find((l) => l.kind === 'intent' && l.side === 'sell' && l.mint === f.mint && l.at >= f.at && l.at <= f.at + TIME_STOP_MS);
      expect(sold, `time stop of ${f.mint ?? ''} bought at ${f.at}`).toBeDefined();
      expect(sold!.at - f.at).toBeLessThan(TIME_STOP_MS + 5_000);
      if (sold!.reason === `time stop after ${TIME_STOP_MS} ms`) expect(sold!.at - f.at).toBeGreaterThanOrEqual(TIME_STOP_MS);
    }
    expect(timeStops.length).toBeGreaterThan(0);
  }, 120_000);
});
