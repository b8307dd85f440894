/**
 * The cost of a paper deployment's store: every paper intent and its fill are queued to the paper
 * book before the executor and the engine see them, and written in one transaction per event-loop
 * turn (SQLite, WAL, synchronous NORMAL; paper-book.ts), and a restart replays every fill.
 * Baseline: encoding the same intent and fill (the JSON the book stores).
 * - book write, one turn each: an intent and its fill, then the turn's transaction (the worst case:
 *   a turn with a single change; before batching every change was its own FULL-synchronous commit,
 *   about 130 intent + fill pairs/s on the shared 2-core machine);
 * - book write, batched: many turns' changes, written {@link MAX_BATCH} at a time (a busy daemon);
 * - restore: reading back and replaying 5 000 fills (positions and paper cash), as a start does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OrderIntent } from '../src/engine/orders/execution-port.js';
import { encodeFill, encodeIntent } from '../src/executors/journal/codec.js';
import { openDeploymentStore } from '../src/runtime/store/deployment-store.js';
import { MAX_BATCH, paperCashAfter } from '../src/runtime/store/paper-book.js';
import { bookFill, bookIntent, fillInBook } from '../test/runtime/support/paper-book-driver.js';
import { opsPerSecond, type Bench } from './harness.js';

const BENCH = { strategyId: 'bench', reason: 'bench' };
const intentOf = (n: number): OrderIntent => bookIntent(n, BENCH);

const bench: Bench = {
  name: 'paper-book',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'cp-bench-book-'));
    try {
      let k = 0;
      const baseline = opsPerSecond(
        () => {
          k++;
          encodeIntent(intentOf(k));
          encodeFill(bookFill(k));
        },
        500,
        50,
      );
      const store = openDeploymentStore({ path: join(dir, 'book.db'), deployment: 'bench', paper: { market: 'bench', at: 0 } });
      const book = store.paper!;
      let n = 0;
      const perTurn = opsPerSecond(
        () => {
          n++;
          book.submitted(intentOf(n));
          fillInBook(book, n);
          book.flush();
        },
        1_000,
        10,
      );
      const writes = opsPerSecond(
        () => {
          n++;
          book.submitted(intentOf(n));
          fillInBook(book, n);
        },
        1_000,
        10,
      );
      book.flush();
      await store.close();
      const full = openDeploymentStore({ path: join(dir, 'restore.db'), deployment: 'bench', paper: { market: 'bench', at: 0 } });
      for (let i = 0; i < 5_000; i++) {
        full.paper!.submitted(intentOf(i));
        fillInBook(full.paper!, i);
      }
      const t0 = process.hrtime.bigint();
      const restored = full.paper!.restored();
      paperCashAfter(10_000_000_000_000n, restored);
      const restoreMs = Number(process.hrtime.bigint() - t0) / 1e6;
      await full.close();
      return [
        { name: 'encode intent + fill (baseline)', value: baseline, unit: 'ops/s' },
        {
          name: 'book write: intent + fill, one turn each',
          value: perTurn,
          unit: 'ops/s',
          ratio: perTurn / baseline,
          note: 'a commit per pair, synchronous NORMAL',
        },
        { name: 'book write: intent + fill, batched', value: writes, unit: 'ops/s', ratio: writes / baseline, note: `a commit per ${MAX_BATCH} changes` },
        { name: 'restore 5 000 fills', value: restoreMs, unit: 'ms', note: `${restored.fills.length} fills replayed` },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
