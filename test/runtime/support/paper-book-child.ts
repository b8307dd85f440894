/**
 * Child of paper-book-crash.test.ts: a paper book written as a paper deployment writes it, one
 * intent submitted and the previous one filled per event-loop turn. After each turn's batch is
 * written it prints the turn's number: every change up to that turn is on disk. Runs until killed.
 *
 * With a count N as its second argument it writes N books (`PATH-0.db` ...) as the daemon does:
 * their writes share one sliced queue (sliced-turns.ts) that writes one book per event-loop turn,
 * and a turn is printed once every book's batch of it is written. With `daemon` as the third, the
 * queue has the daemon's own delay and slice (BOOK_WRITE_DELAY_MS, BOOK_WRITE_SLICE_MS): turns are
 * written in bursts of 20, one per event-loop turn without waiting for the books, and the last turn
 * of a burst is printed once every book has written it (the kill can land mid-burst, with a group
 * commit of many turns queued).
 */
import { openDeploymentStore } from '../../../src/runtime/store/deployment-store.js';
import type { PaperBook } from '../../../src/runtime/store/paper-book.js';
import { BOOK_WRITE_DELAY_MS, BOOK_WRITE_SLICE_MS, createSlicedTurns } from '../../../src/runtime/store/sliced-turns.js';
import { bookIntent, fillInBook } from './paper-book-driver.js';

const path = process.argv[2] ?? '';
const count = Number(process.argv[3] ?? 0);
const daemon = process.argv[4] === 'daemon';
const shared = count > 0 ? createSlicedTurns(daemon ? { sliceMs: BOOK_WRITE_SLICE_MS, delayMs: BOOK_WRITE_DELAY_MS } : { sliceMs: 0, delayMs: 5 }) : undefined;
const books = (count > 0 ? Array.from({ length: count }, (_, i) => `${path}-${i}.db`) : [path]).map((p) => {
  const store = openDeploymentStore({
    path: p,
    deployment: 'crash',
    paper: { market: 'crash-market', at: 0, ...(shared ? { defer: shared.defer } : {}) },
  });
  if (!store.paper) throw new Error('a paper store has a book');
  return store.paper;
});
const write = (book: PaperBook, turn: number): void => {
  book.submitted(bookIntent(turn, { strategyId: 'crash', reason: 'crash test' }));
  if (turn > 0) fillInBook(book, turn - 1, turn);
};
const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));
for (let turn = 0; turn < 1_000_000; turn++) {
  for (const book of books) write(book, turn);
  if (daemon && turn % 20 !== 19) {
    await nextTurn(); // the burst goes on: what the books queued is written later, grouped
    continue;
  }
  // a book's batch is written at the end of this turn, before the next immediate runs (shared:
  // one book a turn, so wait until every book's is)
  do await nextTurn();
  while (books.some((b) => b.queued() > 0));
  process.stdout.write(`${turn}\n`);
}
