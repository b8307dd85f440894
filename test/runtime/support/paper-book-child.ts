/**
 * Child of paper-book-crash.test.ts: a paper book written as a paper deployment writes it, one
 * intent submitted and the previous one filled per event-loop turn. After each turn's batch is
 * written it prints the turn's number: every change up to that turn is on disk. Runs until killed.
 */
import { bps, lamports, rawAmount, type UnixMs } from '../../../src/core/index.js';
import type { OrderIntent } from '../../../src/engine/execution-port.js';
import { openDeploymentStore } from '../../../src/runtime/deployment-store.js';

const MINT = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const path = process.argv[2] ?? '';
const store = openDeploymentStore({ path, deployment: 'crash', paper: { market: 'crash-market', at: 0 } });
const book = store.paper;
if (!book) throw new Error('a paper store has a book');
const intent = (n: number): OrderIntent => ({
  id: `int_${n}`,
  strategyId: 'crash',
  side: 'buy',
  mint: MINT,
  decimals: 6,
  spendLamports: lamports(10_000_000n),
  slippageBps: bps(300),
  priorityFeeLamports: lamports(10_000n),
  referencePrice: undefined,
  createdAt: n as UnixMs,
  reason: 'crash test',
});
for (let turn = 0; turn < 1_000_000; turn++) {
  book.submitted(intent(turn));
  if (turn > 0) {
    const n = turn - 1;
    book.resolved({
      type: 'filled',
      intentId: `int_${n}`,
      at: turn as UnixMs,
      fill: {
        intentId: `int_${n}`,
        side: 'buy',
        mint: MINT,
        decimals: 6,
        solAmount: lamports(10_000_000n),
        tokenAmount: rawAmount(1_000_000n),
        feeLamports: lamports(5_000n),
        price: '0.00001',
        filledAt: turn as UnixMs,
      },
    });
  }
  // the book's batch is written at the end of this turn, before the next immediate runs
  await new Promise((r) => setImmediate(r));
  process.stdout.write(`${turn}\n`);
}
