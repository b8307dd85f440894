/**
 * The crash test: child processes run the live executor against a chain that lives in this
 * process and are killed with SIGKILL at random moments and at named instants: at every step
 * between the decision and the first send (the decision journaled, the swap built, inspected, the
 * block height read, signed in memory, the signed attempt journaled), between sending and
 * journaling the send, and between journaling the outcome and reporting it. Each lane first kills
 * at its share of the instants, so every instant is killed at least once. After every restart the child reconciles. At the end: at most one
 * landed transaction per intent, every landed swap is in the journal and in the portfolio, and the
 * ledger's balances equal the portfolio's view.
 *
 * Two chains: the simulator's real ledger (LiteSVM behind JSON-RPC and the swap service, with its
 * seeded faults) and the fake chain (which also lists every transaction it ever received, so the
 * test proves nothing was sent before it was journaled).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { build } from 'esbuild';
import { expect } from 'vitest';
import type { Random } from '../../../src/core/random.js';
import { openSqliteJournal } from '../../../src/executors/journal/sqlite-journal.js';

const dir = mkdtempSync(join(tmpdir(), 'chainpilot-crash-'));
const childBundle = join(dir, 'crash-child.cjs');
const nodePath = fileURLToPath(new URL('../../../node_modules', import.meta.url));
/** Every named instant (drive-intent.ts, LiveProbePoint), the six between the decision and the first send first. */
const POINTS = ['created', 'swapped', 'inspected', 'built', 'signed-unjournaled', 'signed', 'sent', 'resolved'];
export const INITIAL_LAMPORTS = 1_000_000_000_000n;

/** Bundles the child once per test file (CommonJS, native modules external): each restart is a plain `node` start. */
export async function bundleChild(): Promise<void> {
  await build({
    entryPoints: [fileURLToPath(new URL('./crash-child.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: childBundle,
    external: ['better-sqlite3', 'bigint-buffer'],
    logLevel: 'error',
  });
}

/** Removes the temp dir (journals, portfolios, bundle). */
export function cleanUp(): void {
  rmSync(dir, { recursive: true, force: true });
}

/** When to kill: after `ms` from spawn, or after the child's "ready" line (reconciliation done). */
type Kill = { readonly fromReadyMs: number } | { readonly fromSpawnMs: number } | undefined;

interface RunResult {
  readonly killed: boolean;
  readonly code: number | null;
  readonly stderr: string;
}

function runChild(env: Record<string, string>, kill: Kill): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [childBundle], { env: { ...process.env, ...env, NODE_PATH: nodePath }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const killIn = (ms: number): void => {
      timer = setTimeout(() => child.kill('SIGKILL'), ms);
    };
    if (kill && 'fromSpawnMs' in kill) killIn(kill.fromSpawnMs);
    child.stdout.on('data', (c: Buffer) => {
      if (kill && 'fromReadyMs' in kill && timer === undefined && c.toString().includes('ready')) killIn(kill.fromReadyMs);
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ killed: signal === 'SIGKILL', code, stderr });
    });
  });
}

/** A chain the children trade on, living in this process. */
export interface Backend {
  readonly env: Record<string, string>;
  readonly mint: string;
  fund(wallet: PublicKey): void;
  lamportsOf(wallet: PublicKey): bigint;
  tokensOf(wallet: PublicKey): bigint;
  /** The chain's status of a signature: undefined when it never landed, else its error (null = success). */
  landed(signature: string): { err: unknown } | undefined;
  /** Signatures of every successful swap the chain executed. */
  successfulSwaps(): string[];
  /** Every signature the chain ever received, when the chain can tell. */
  received(): ReadonlySet<string> | undefined;
  close(): Promise<void>;
}

interface Lane {
  readonly name: string;
  readonly seed: Uint8Array;
  readonly wallet: PublicKey;
  readonly journalPath: string;
  readonly portfolioPath: string;
  readonly ids: string[];
  readonly killsAt: Map<string, number>;
}

export async function crashAndCheck(tag: string, backend: Backend, kills: number, laneCount: number, random: Random): Promise<void> {
  const lanes: Lane[] = Array.from({ length: laneCount }, (_, i) => {
    const seed = new Uint8Array(32).fill(17 + i);
    const wallet = Keypair.fromSeed(seed).publicKey;
    backend.fund(wallet);
    return {
      name: `${tag}${i}`,
      seed,
      wallet,
      journalPath: join(dir, `${tag}${i}.sqlite`),
      portfolioPath: join(dir, `${tag}${i}.jsonl`),
      ids: [],
      killsAt: new Map(),
    };
  });

  const driveLane = async (lane: Lane, laneKills: number, laneIndex: number): Promise<void> => {
    const env = {
      ...backend.env,
      JOURNAL: lane.journalPath,
      PORTFOLIO: lane.portfolioPath,
      WALLET_SEED: Buffer.from(lane.seed).toString('hex'),
      MINT: backend.mint,
    };
    const rnd = random.fork(lane.name);
    let killed = 0;
    let namedRuns = 0;
    // Each lane first kills at its share of the instants (every laneCount-th), one named run each, a
    // run whose instant never came (say `resolved` when both intents expired) tried again; the lanes
    // together so cover every instant. Then named and timed runs alternate.
    const mine = POINTS.filter((_p, i) => i % laneCount === laneIndex);
    for (let run = 0; killed < laneKills || mine.length > 0; run++) {
      expect(run, `lane ${lane.name}: runs before its instants ${mine.join(', ')} were killed`).toBeLessThan(40);
      const ids = [0, 1].map((i) => `${lane.name}-${run}-${i}`);
      lane.ids.push(...ids);
      const named = mine.length > 0 || run % 2 === 0;
      const point = mine[0] ?? POINTS[(namedRuns * laneCount + laneIndex) % POINTS.length]!;
      if (named) namedRuns++;
      const kill: Kill = named ? { fromSpawnMs: 30_000 } : rnd.chance(0.3) ? { fromSpawnMs: rnd.int(50, 400) } : { fromReadyMs: rnd.int(0, 250) };
      const r = await runChild({ ...env, INTENTS: ids.join(','), ...(named ? { CRASH_AT: `${point}:1` } : {}) }, kill);
      expect(r.stderr).not.toContain('executor error');
      if (r.killed) {
        killed++;
        if (named && point === mine[0]) mine.shift();
        const key = named ? point : 'timed';
        lane.killsAt.set(key, (lane.killsAt.get(key) ?? 0) + 1);
      } else expect(r.code, r.stderr).toBe(0);
    }
    const last = await runChild({ ...env, INTENTS: '' }, undefined); // reconciles what is left
    expect(last.code, last.stderr).toBe(0);
  };

  await Promise.all(lanes.map((l, i) => driveLane(l, kills / laneCount, i)));
  for (const p of POINTS)
    expect(
      lanes.reduce((n, l) => n + (l.killsAt.get(p) ?? 0), 0),
      `kills at ${p}`,
    ).toBeGreaterThan(0);

  const owner = new Map<string, string>();
  let totalFills = 0;
  for (const lane of lanes) {
    const journal = openSqliteJournal({ path: lane.journalPath });
    try {
      expect(await journal.unresolved()).toEqual([]);
      const recs = (await Promise.all(lane.ids.map((id) => journal.get(id)))).filter((r) => r !== undefined);
      let spent = 0n;
      let tokens = 0n;
      const fills = new Map<string, { solAmount: string; tokenAmount: string; feeLamports: string }>();
      const failed = new Map<string, string>();
      const lines = existsSync(lane.portfolioPath) ? readFileSync(lane.portfolioPath, 'utf8').split('\n').filter(Boolean) : [];
      for (const line of lines) {
        const r = JSON.parse(line) as {
          type: string;
          intentId: string;
          fill?: { solAmount: string; tokenAmount: string; feeLamports: string; signature: string };
          feeLamports?: string;
        };
        if (r.type === 'filled' && r.fill) fills.set(r.fill.signature, r.fill); // a portfolio de-duplicates by signature
        if (r.type === 'failed' && r.feeLamports) failed.set(r.intentId, r.feeLamports);
      }
      for (const rec of recs) {
        for (const a of rec.attempts) owner.set(a.signature, rec.intent.id);
        const landed = rec.attempts.filter((a) => backend.landed(a.signature) !== undefined);
        expect(landed.length, `landed transactions of ${rec.intent.id}`).toBeLessThanOrEqual(1);
        const l = landed[0];
        const err = l ? backend.landed(l.signature)?.err : undefined;
        const expected = l ? (err === null ? 'LANDED' : 'FAILED_ON_CHAIN') : rec.state === 'DENIED' ? 'DENIED' : 'EXPIRED';
        expect(rec.state, rec.intent.id).toBe(expected);
        if (l && err === null) expect(fills.has(l.signature), `fill of ${l.signature} in the portfolio`).toBe(true);
        if (l && err !== null) expect(failed.has(rec.intent.id)).toBe(true);
      }
      for (const f of fills.values()) {
        spent += BigInt(f.solAmount) + BigInt(f.feeLamports);
        tokens += BigInt(f.tokenAmount);
      }
      for (const fee of failed.values()) spent += BigInt(fee);
      expect(backend.lamportsOf(lane.wallet), `lane ${lane.name} SOL`).toBe(INITIAL_LAMPORTS - spent);
      expect(backend.tokensOf(lane.wallet), `lane ${lane.name} tokens`).toBe(tokens);
      totalFills += fills.size;
    } finally {
      await journal.close();
    }
  }
  expect(totalFills).toBeGreaterThanOrEqual(3); // the runs traded, not just crashed
  for (const sig of backend.successfulSwaps()) expect(owner.has(sig), `landed but not journaled: ${sig}`).toBe(true);
  for (const sig of backend.received() ?? []) expect(owner.has(sig), `sent but not journaled: ${sig}`).toBe(true);
}
