/**
 * The crash test: a child process runs the live executor against a chain that lives in this
 * process, and is killed with SIGKILL at random moments and at named instants (after building,
 * between signing and sending, between sending and journaling the send, between journaling the
 * outcome and reporting it). After every restart it reconciles. At the end: at most one landed
 * transaction per intent, every landed transaction is in the journal and the portfolio, and the
 * ledger's balances equal the portfolio's view.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { seededRandom } from '../../src/core/random.js';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
import { serveChain } from './support/chain-bridge.js';
import { createFakeChain, type SendFate } from './support/fake-chain.js';
import { createFakeSwap } from './support/fake-swap.js';

const KILLS = 50;
const VALIDITY_BLOCKS = 80;
const dir = mkdtempSync(join(tmpdir(), 'chainpilot-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface RunResult {
  readonly killed: boolean;
  readonly code: number | null;
  readonly stderr: string;
}

/** The child, bundled once (CommonJS, native modules external) so each restart is a plain `node` start. */
const childBundle = join(dir, 'crash-child.cjs');
const nodePath = fileURLToPath(new URL('../../node_modules', import.meta.url));

/** When to kill: after `ms` from spawn, or from the child's "ready" line (start-up reconciliation done). */
type Kill = { readonly fromReadyMs: number } | { readonly fromSpawnMs: number } | undefined;

function runChild(env: Record<string, string>, kill: Kill): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [childBundle], {
      env: { ...process.env, ...env, NODE_PATH: nodePath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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

describe('crash recovery (child process killed with SIGKILL)', () => {
  const clock = systemClock();
  const chain = createFakeChain({ clock, blockMs: 10, validityBlocks: VALIDITY_BLOCKS });
  const mint = chain.createMint(6);
  chain.addPool(mint, 30_000_000_000n, 1_000_000_000_000_000n);
  const swap = createFakeSwap(chain, () => 6);
  const initialLamports = 1_000_000_000_000n;
  const random = seededRandom('crash-test');
  // Random fates for every new transaction: mostly landing, some dropped, late or failing.
  const fates: SendFate[] = Array.from({ length: 2000 }, () => {
    const x = random.next();
    if (x < 0.6) return { kind: 'land', afterBlocks: random.int(1, 3) };
    if (x < 0.75) return { kind: 'drop' };
    if (x < 0.9) return { kind: 'timeout-then-land', afterBlocks: random.int(3, VALIDITY_BLOCKS - 5) };
    return { kind: 'fail' };
  });
  chain.fates.push(...fates);
  let url = '';
  let close = (): void => {};
  beforeAll(async () => {
    await build({
      entryPoints: [fileURLToPath(new URL('./support/crash-child.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: childBundle,
      external: ['better-sqlite3', 'bigint-buffer'],
      logLevel: 'error',
    });
    const served = await serveChain(chain, swap);
    url = served.url;
    close = () => served.server.close();
  });
  afterAll(() => close());

  interface Lane {
    readonly name: string;
    readonly seed: Uint8Array;
    readonly wallet: Keypair;
    readonly journalPath: string;
    readonly portfolioPath: string;
    readonly ids: string[];
    readonly killsAt: Map<string, number>;
  }

  const lanes: Lane[] = ['a', 'b', 'c', 'd', 'e'].map((name, i) => {
    const seed = new Uint8Array(32).fill(5 + i);
    const wallet = Keypair.fromSeed(seed);
    chain.airdrop(wallet.publicKey, initialLamports);
    return { name, seed, wallet, journalPath: join(dir, `${name}.sqlite`), portfolioPath: join(dir, `${name}.jsonl`), ids: [], killsAt: new Map() };
  });
  const points = ['built', 'signed', 'sent', 'resolved'];

  /** Runs one lane until it was killed `kills` times, then once more to completion. */
  async function driveLane(lane: Lane, kills: number): Promise<void> {
    const env = {
      CHAIN_URL: url,
      JOURNAL: lane.journalPath,
      PORTFOLIO: lane.portfolioPath,
      WALLET_SEED: Buffer.from(lane.seed).toString('hex'),
      MINT: mint.toBase58(),
      VALIDITY_BLOCKS: String(VALIDITY_BLOCKS),
    };
    const rnd = random.fork(lane.name);
    let killed = 0;
    for (let run = 0; killed < kills; run++) {
      const ids = Array.from({ length: 2 }, (_, i) => `${lane.name}${run}-${i}`);
      lane.ids.push(...ids);
      const named = run % 2 === 0;
      const point = points[(run / 2) % points.length | 0]!;
      const kill: Kill = named ? { fromSpawnMs: 20_000 } : rnd.chance(0.3) ? { fromSpawnMs: rnd.int(50, 400) } : { fromReadyMs: rnd.int(0, 250) };
      const t0 = Date.now();
      const r = await runChild({ ...env, INTENTS: ids.join(','), ...(named ? { CRASH_AT: `${point}:1` } : {}) }, kill);
      expect(r.stderr).not.toContain('executor error');
      if (process.env['CRASH_DEBUG']) console.log(lane.name, run, named ? point : 'timed', r.killed, Date.now() - t0);
      if (r.killed) {
        killed++;
        const key = named ? point : 'timed';
        lane.killsAt.set(key, (lane.killsAt.get(key) ?? 0) + 1);
      } else expect(r.code, r.stderr).toBe(0);
    }
    const last = await runChild({ ...env, INTENTS: '' }, undefined);
    expect(last.code, last.stderr).toBe(0);
  }

  it(`lands at most one transaction per intent across ${KILLS} kills, and the ledger equals the portfolio`, async () => {
    await Promise.all(lanes.map((l) => driveLane(l, KILLS / lanes.length)));
    const owner = new Map<string, string>();
    let totalFills = 0;
    for (const p of points) expect(lanes.reduce((n, l) => n + (l.killsAt.get(p) ?? 0), 0), `kills at ${p}`).toBeGreaterThan(0);
    for (const lane of lanes) {
      const journal = openSqliteJournal({ path: lane.journalPath });
      try {
        expect(await journal.unresolved()).toEqual([]);
        const recs = (await Promise.all(lane.ids.map((id) => journal.get(id)))).filter((r) => r !== undefined);
        for (const rec of recs) for (const a of rec.attempts) owner.set(a.signature, rec.intent.id);
        if (process.env['CRASH_DEBUG']) console.log(lane.name, lane.ids.length, recs.map((r) => `${r.state}/${r.code ?? ''}/${r.attempts.length}`).join(' '));
        const mine = chain.stats.landed.filter((l) => l.tx.meta && recs.some((r) => r.attempts.some((a) => a.signature === l.signature)));
        // at most one landed transaction per intent
        const perIntent = new Map<string, number>();
        for (const l of mine) perIntent.set(owner.get(l.signature)!, (perIntent.get(owner.get(l.signature)!) ?? 0) + 1);
        for (const [id, n] of perIntent) expect(n, `landed transactions of ${id}`).toBe(1);
        // the journal's verdict agrees with the chain
        for (const rec of recs) {
          const l = mine.find((x) => owner.get(x.signature) === rec.intent.id);
          const expected = l ? (l.err === null ? 'LANDED' : 'FAILED_ON_CHAIN') : rec.state === 'DENIED' ? 'DENIED' : 'EXPIRED';
          expect(rec.state, rec.intent.id).toBe(expected);
        }
        // the portfolio: reports deduplicated by signature (fills) and intent (failures)
        const lines = existsSync(lane.portfolioPath) ? readFileSync(lane.portfolioPath, 'utf8').split('\n').filter(Boolean) : [];
        const fills = new Map<string, { solAmount: string; tokenAmount: string; feeLamports: string; signature: string }>();
        const failed = new Map<string, string>();
        for (const line of lines) {
          const r = JSON.parse(line) as { type: string; intentId: string; fill?: { solAmount: string; tokenAmount: string; feeLamports: string; signature: string }; feeLamports?: string };
          if (r.type === 'filled' && r.fill) fills.set(r.fill.signature, r.fill);
          if (r.type === 'failed' && r.feeLamports) failed.set(r.intentId, r.feeLamports);
        }
        expect([...fills.keys()].sort()).toEqual(mine.filter((l) => l.err === null).map((l) => l.signature).sort());
        expect(failed.size).toBe(mine.filter((l) => l.err !== null).length);
        let spent = 0n;
        let tokens = 0n;
        for (const f of fills.values()) {
          spent += BigInt(f.solAmount) + BigInt(f.feeLamports);
          tokens += BigInt(f.tokenAmount);
        }
        for (const fee of failed.values()) spent += BigInt(fee);
        expect(chain.lamportsOf(lane.wallet.publicKey)).toBe(initialLamports - spent);
        expect(chain.tokensOf(lane.wallet.publicKey, mint)).toBe(tokens);
        totalFills += fills.size;
      } finally {
        await journal.close();
      }
    }
    expect(totalFills).toBeGreaterThan(15); // the runs did real trading, not just crash
    // every transaction the chain ever received was journaled (with its intent) before it was sent
    for (const sig of chain.stats.received) expect(owner.has(sig), `sent but not journaled: ${sig}`).toBe(true);
  }, 180_000);
});
