/**
 * The SQLite journal's writes between a decision and its send, alone: per intent the create, a
 * read, the signed attempt (the one durable write) and a read, as the live executor makes them,
 * then the rest of the intent's life (sent, resolved, reported: checkpoints included) outside the
 * measured window, 8 ms apart like intents on the simulator. Journal on disk (the OS temp dir) and
 * on tmpfs (/dev/shm, where the sync is nearly free): the difference is what the disk costs the
 * process. CPU is the process's CPU clock (getrusage, exact for the calling thread: preemption by
 * other processes does not count), so these rows hold at a load where the latency budget's p99s
 * measure the scheduler. For a pairwise comparison run it with `BENCH_DIST=<other build>/dist`
 * in alternation (issue 42: the signed attempt's fdatasync instead of SQLite's fsync).
 * BENCH_JOURNAL_INTENTS sets the measured intents (default 800, after 200 of warm-up).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bps, Lamports, UnixMs } from '../src/core/units.js';
import type { OrderIntent } from '../src/engine/orders/execution-port.js';
import { openSqliteJournal } from '../src/executors/journal/sqlite-journal.js';
import { loadNote, percentile, type Bench, type BenchRow } from './harness.js';

const INTENTS = Number(process.env['BENCH_JOURNAL_INTENTS'] ?? 800);
const WARMUP = 200;
/** A signed swap's size in base64 (about 900 bytes of transaction). */
const TX_BASE64 = Buffer.alloc(900, 7).toString('base64');

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Run {
  /** CPU of create + get + recordSigned + get, ms per intent. */
  preSend: number[];
  /** CPU of recordSigned alone. */
  signedCpu: number[];
  /** Wall time of recordSigned (its sync included). */
  signedWall: number[];
}

async function measure(dir: string): Promise<Run> {
  const path = join(mkdtempSync(join(dir, 'chainpilot-bench-journal-')), 'j.sqlite');
  const j = openSqliteJournal({ path });
  const run: Run = { preSend: [], signedCpu: [], signedWall: [] };
  try {
    for (let i = 0; i < WARMUP + INTENTS; i++) {
      const id = `bench-intent-${i}`;
      const signature = `sig-${i}-${'s'.repeat(80)}`;
      const intent: OrderIntent = {
        id,
        strategyId: 'bench',
        side: 'buy',
        mint: 'So11111111111111111111111111111111111111112',
        decimals: 6,
        spendLamports: 1_000_000n as Lamports,
        slippageBps: 100 as Bps,
        priorityFeeLamports: 0n as Lamports,
        referencePrice: '0.001',
        createdAt: i as UnixMs,
        reason: 'bench',
      };
      const c0 = cpuMs();
      await j.create(intent, { spendLamports: 1_000_000n, day: '2026-01-01' }, i);
      await j.get(id);
      const c1 = cpuMs();
      const w1 = performance.now();
      await j.recordSigned(id, { signature, txBase64: TX_BASE64, blockhash: 'b'.repeat(44), expiryBlockHeight: 1_000 + i, slippageBps: 100 }, i);
      const w2 = performance.now();
      const c2 = cpuMs();
      await j.get(id);
      const c3 = cpuMs();
      if (i >= WARMUP) {
        run.preSend.push(c3 - c0);
        run.signedCpu.push(c2 - c1);
        run.signedWall.push(w2 - w1);
      }
      await sleep(8);
      await j.markSent(id, signature, i);
      await sleep(8);
      await j.resolve(id, { state: 'EXPIRED', signature, final: true }, i);
      await j.markReported(id, i);
    }
  } finally {
    await j.close();
    rmSync(join(path, '..'), { recursive: true, force: true });
  }
  return run;
}

const bench: Bench = {
  name: 'journal-sync',
  async run() {
    const places: [string, string][] = [['disk', tmpdir()]];
    if (existsSync('/dev/shm')) places.push(['tmpfs', '/dev/shm']);
    const rows: BenchRow[] = [];
    for (const [where, dir] of places) {
      const r = await measure(dir);
      const load = loadNote();
      const row = (what: string, sample: number[], p: number, note?: string): BenchRow => ({
        name: `${where}: ${what} p${p}`,
        value: percentile(sample, p),
        unit: 'ms',
        ...(note ? { note } : {}),
      });
      rows.push(
        row('journal CPU between decision and send (create, read, signed attempt, read)', r.preSend, 50, `${INTENTS} intents on ${dir}; ${load}`),
        row('journal CPU between decision and send (create, read, signed attempt, read)', r.preSend, 99),
        row('signed attempt, CPU', r.signedCpu, 50),
        row('signed attempt, CPU', r.signedCpu, 99),
        row('signed attempt, wall (its sync included)', r.signedWall, 50),
        row('signed attempt, wall (its sync included)', r.signedWall, 99),
      );
    }
    return rows;
  },
};
export default bench;
