/**
 * What a crash may take from a paper book (docs/daemon.md, "Paper books: what a crash may lose"):
 * a child process writes a book and is killed with SIGKILL while writing; the book it leaves is a
 * prefix of its changes that holds every turn the child reported as written, also when the books
 * share the daemon's queue with its own group-commit delay. A batch that cannot
 * be written reports RUNTIME_PAPER_BOOK_WRITE_FAILED and leaves the earlier batches as they were.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { bps, lamports, type ChainpilotError, type UnixMs } from '../../src/core/index.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { openDeploymentStore } from '../../src/runtime/store/deployment-store.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-book-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const child = fileURLToPath(new URL('./support/paper-book-child.ts', import.meta.url));

/** Runs the child until it reported `turns` written turns, kills it, and returns the last turn it reported. */
function writeThenKill(path: string, turns: number, books?: number, daemon = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const args = [path, ...(books === undefined ? [] : [String(books)]), ...(daemon ? ['daemon'] : [])];
    const p = spawn(process.execPath, ['--import', 'tsx', child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let reported = -1;
    let buffered = '';
    let stderr = '';
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    p.stdout.on('data', (c: Buffer) => {
      buffered += c.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const l of lines) if (p.exitCode === null && !p.killed) reported = Number(l);
      if (reported >= turns && !p.killed) p.kill('SIGKILL');
    });
    p.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(reported) : reject(new Error(`child exited ${String(code)}: ${stderr}`))));
  });
}

/** Checks the book at `path` holds a prefix of the child's turns, every one up to `reported` included. */
async function expectPrefix(path: string, reported: number): Promise<void> {
  const store = openDeploymentStore({ path, deployment: 'crash', paper: { market: 'crash-market', at: 0 } });
  try {
    const book = store.paper!;
    const fills = book.restored().fills.map((f) => f.fill.intentId);
    // turn t filled intent t - 1: every fill up to the last reported turn is there, in order, with no gap
    expect(fills.length).toBeGreaterThanOrEqual(reported);
    expect(fills).toEqual(Array.from({ length: fills.length }, (_, i) => `int_${i}`));
    // the only intent left pending is the one submitted in the last written turn (resolved expired at open)
    expect(book.abandoned.map((i) => i.id)).toEqual([`int_${fills.length}`]);
  } finally {
    await store.close();
  }
}

it('keeps, after a SIGKILL mid-write, a prefix of the book holding every turn reported written', async () => {
  const path = join(dir, 'crash.db');
  const reported = await writeThenKill(path, 300);
  expect(reported).toBeGreaterThanOrEqual(300);
  await expectPrefix(path, reported);
}, 60_000);

it('keeps every book a prefix when the books share the daemon’s sliced write queue', async () => {
  const path = join(dir, 'shared');
  const reported = await writeThenKill(path, 200, 3);
  expect(reported).toBeGreaterThanOrEqual(200);
  for (let i = 0; i < 3; i++) await expectPrefix(`${path}-${i}.db`, reported);
}, 60_000);

it('keeps every book a prefix holding every turn reported written with the daemon’s own group commit (BOOK_WRITE_DELAY_MS), killed mid-burst', async () => {
  const path = join(dir, 'daemon');
  // each reported turn closes a burst of 20 written one per event-loop turn and grouped for the delay
  const reported = await writeThenKill(path, 79, 3, true);
  expect(reported).toBeGreaterThanOrEqual(79);
  for (let i = 0; i < 3; i++) await expectPrefix(`${path}-${i}.db`, reported);
}, 60_000);

const intent = (n: number): OrderIntent => ({
  id: `int_${n}`,
  strategyId: 's',
  side: 'buy',
  mint: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
  decimals: 6,
  spendLamports: lamports(10_000_000n),
  slippageBps: bps(300),
  priorityFeeLamports: lamports(10_000n),
  referencePrice: undefined,
  createdAt: n as UnixMs,
  reason: 'test',
});

it('reports a batch it cannot write with RUNTIME_PAPER_BOOK_WRITE_FAILED and keeps the batches before it', async () => {
  const path = join(dir, 'failing.db');
  const errors: ChainpilotError[] = [];
  const turns: (() => void)[] = [];
  const store = openDeploymentStore({
    path,
    deployment: 'failing',
    paper: { market: 'm', at: 0, onError: (e) => errors.push(e), defer: (w) => turns.push(w) },
  });
  const book = store.paper!;
  book.submitted(intent(1));
  turns.shift()?.();
  expect(book.queued()).toBe(0);
  // the second turn's batch holds a new intent and one whose id the book already holds: refused whole
  book.submitted(intent(2));
  book.submitted(intent(1));
  turns.shift()?.();
  expect(errors.map((e) => e.code)).toEqual(['RUNTIME_PAPER_BOOK_WRITE_FAILED']);
  await store.close();
  const again = openDeploymentStore({ path, deployment: 'failing', paper: { market: 'm', at: 0 } });
  expect(again.paper!.abandoned.map((i) => i.id)).toEqual(['int_1']);
  await again.close();
});
