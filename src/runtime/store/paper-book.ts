/**
 * The paper book of a deployment store: every paper intent with its outcome (fill, failed fee,
 * rejection, expiry), so a restarted paper deployment rebuilds positions, cost basis, cash and
 * realised PnL exactly. The book is kept for one market (the endpoint it traded on, see
 * `paperMarket` in paper-deployment.ts): opened for another market it starts afresh (the old
 * book's rows are dropped and the risk day and daily halt reset; the kill switch stays, it is the
 * operator's). An intent still pending when the previous run ended never filled: it is resolved
 * as EXPIRED at open, never filled after the fact (its fill would be made up from prices the run
 * did not see).
 *
 * Writes are batched (docs/daemon.md, "Paper books: what a crash may lose"): `submitted` and
 * `resolved` queue their row change, and the queue is written in one transaction at the end of the
 * event-loop turn (or at once when it holds {@link MAX_BATCH} changes, before a risk-state write,
 * a read of the book and at close). Changes are applied in the order they were queued, a batch
 * atomically: after a crash the book on disk is always a prefix of the run's changes, missing at
 * most the changes of the turn in progress. A batch that cannot be written halts the deployment
 * (RUNTIME_PAPER_BOOK_WRITE_FAILED through `onError`).
 */
import type Database from 'better-sqlite3';
import { ChainpilotError, describeError, isChainpilotError, lamports, type UnixMs } from '../../core/index.js';
import type { RestoredFailedFee, RestoredFill } from '../../engine/engine.js';
import type { ExecutionReport, Executor, OrderIntent } from '../../engine/orders/execution-port.js';
import { createPortfolio } from '../../engine/market/portfolio.js';
import { decodeFill, decodeIntent, encodeFill, encodeIntent } from '../../executors/journal/codec.js';
import { migrateSchema, type SchemaPart } from '../../executors/journal/sqlite-schema.js';
import { spendOf, utcDay, type AdmissionCode } from '../../executors/admission.js';
import { PAPER_CARRY_MIGRATION, pruneBook, readCarry, type PaperCarry } from './paper-book-retention.js';

/** Codes of the admission module's refusals: such an intent committed no spend. */
const ADMISSION_CODES: ReadonlySet<string> = new Set<AdmissionCode>([
  'LIVE_INVALID_INTENT',
  'LIVE_SPEND_CAP_TRADE',
  'LIVE_SPEND_CAP_DAY',
  'LIVE_NO_REFERENCE_PRICE',
]);

/** The paper book's tables, version by version (sqlite-schema.ts). */
const PAPER_BOOK_SCHEMA: SchemaPart = {
  name: 'paper-book',
  migrations: [
    `
CREATE TABLE IF NOT EXISTS paper_book (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  market TEXT NOT NULL,
  runs INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS paper_intents (
  id TEXT PRIMARY KEY,
  intent_json TEXT NOT NULL,
  state TEXT NOT NULL,
  fill_json TEXT,
  fee_lamports TEXT,
  code TEXT,
  reason TEXT,
  created_at INTEGER NOT NULL,
  resolved_at INTEGER,
  resolved_seq INTEGER UNIQUE
);
`,
    PAPER_CARRY_MIGRATION,
  ],
};

/** Reason given to intents that were pending when the previous run ended. */
export const ABANDONED_REASON = 'in flight when the previous run ended; a paper fill is never made up after a restart';

/** Fills and failed-transaction fees of the book, in the order they resolved. */
export interface PaperRestore {
  readonly fills: readonly RestoredFill[];
  readonly failedFees: readonly RestoredFailedFee[];
  /** What the closed positions the book forgot (its retention) added to the totals; absent: nothing forgotten. */
  readonly carry?: PaperCarry;
}

export interface PaperBook {
  /** The market the book was kept for when it was not this one (the book started afresh). */
  readonly replacedMarket: string | undefined;
  /** Runs on this book, this one included (1: a fresh book). */
  readonly run: number;
  /** Intents pending at the end of the previous run, resolved as EXPIRED at open. */
  readonly abandoned: readonly OrderIntent[];
  /** Queues a pending intent (before the executor sees it); written with the turn's batch. */
  submitted(intent: OrderIntent): void;
  /** Queues a terminal outcome (before the engine applies it); written with the turn's batch. */
  resolved(report: ExecutionReport): void;
  /** Writes the queued changes now, in one transaction (throws RUNTIME_PAPER_BOOK_WRITE_FAILED). */
  flush(): void;
  /** Changes queued and not yet written. */
  queued(): number;
  /** Every fill and failed fee written so far (flushes first). */
  restored(): PaperRestore;
  /**
   * Spend per UTC day of the book's earlier runs, as the live journal counts it: every intent the
   * executor admitted (its outcome aside) on the day it was decided; an intent refused at admission
   * spent nothing. A resumed run's rails start from it, so a day cap refuses as live would.
   */
  readonly spentBefore: ReadonlyMap<string, bigint>;
}

/** A batch is written at once when it holds this many row changes (bounds the queue and a crash's loss). */
export const MAX_BATCH = 256;

export interface PaperBookOptions {
  /** Where a batch written at the end of a turn reports its failure (the deployment halts); default: thrown into the loop. */
  readonly onError?: (error: ChainpilotError) => void;
  /** Schedules the end-of-turn write (default `setImmediate`); tests pass their own. */
  readonly defer?: (write: () => void) => void;
  /** Called after each batch committed (the store asks for WAL checkpoints off the main thread, wal-checkpointer.ts). */
  readonly committed?: () => void;
  /**
   * `paper.bookRetention` (ms of run clock, at least a day): what resolved longer ago is forgotten
   * (paper-book-retention.ts), at open and then once per {@link PRUNE_EVERY_MS} of the reports'
   * times, after a batch; absent: the book keeps everything.
   */
  readonly retentionMs?: number;
}

/** Run-clock milliseconds between two prunes of a book with a retention. */
export const PRUNE_EVERY_MS = 3_600_000;

interface Row {
  readonly intent_json: string;
  readonly state: string;
  readonly fill_json: string | null;
  readonly fee_lamports: string | null;
  readonly resolved_at: number | null;
}

/** Creates or opens the paper book in `db` for `market`; see the module comment. */
export function openPaperBook(db: Database.Database, market: string, at: number, options: PaperBookOptions = {}): PaperBook {
  migrateSchema(db, db.name, PAPER_BOOK_SCHEMA);
  const opened = db.transaction(() => {
    const book = db.prepare<[], { market: string; runs: number }>('SELECT market, runs FROM paper_book WHERE id = 1').get();
    let replacedMarket: string | undefined;
    let runs = (book?.runs ?? 0) + 1;
    if (book && book.market !== market) {
      replacedMarket = book.market;
      runs = 1;
      db.exec('DELETE FROM paper_intents');
      // A new day at the next start (day_started_at 0 is never today); the kill switch is kept.
      db.exec("UPDATE risk_state SET day_started_at = 0, day_start_equity = '0', daily_halted = 0");
    }
    db.prepare('INSERT INTO paper_book (id, market, runs) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET market = excluded.market, runs = excluded.runs').run(
      market,
      runs,
    );
    const pending = db
      .prepare<[], { id: string; intent_json: string }>("SELECT id, intent_json FROM paper_intents WHERE state = 'PENDING' ORDER BY created_at, rowid")
      .all();
    for (const p of pending) resolve.run('EXPIRED', null, null, 'EXPIRED', ABANDONED_REASON, at, p.id);
    return { replacedMarket, runs, abandoned: pending.map((p) => decodeIntent(p.intent_json)) };
  });
  const resolve = db.prepare(
    "UPDATE paper_intents SET state = ?, fill_json = ?, fee_lamports = ?, code = ?, reason = ?, resolved_at = ?, resolved_seq = (SELECT COALESCE(MAX(resolved_seq), 0) + 1 FROM paper_intents) WHERE id = ? AND state = 'PENDING'",
  );
  const insert = db.prepare("INSERT INTO paper_intents (id, intent_json, state, created_at) VALUES (?, ?, 'PENDING', ?)");
  const resolvedRows = db.prepare<[], Row>(
    "SELECT intent_json, state, fill_json, fee_lamports, resolved_at FROM paper_intents WHERE state IN ('FILLED', 'FAILED') ORDER BY resolved_seq",
  );
  const o = opened.immediate();
  const retentionMs = options.retentionMs;
  let prunedAt = at;
  if (retentionMs !== undefined) pruneBook(db, at - retentionMs);
  /** Reports' latest time: the run clock as the book sees it. */
  let latest = at;
  type Change = readonly [Database.Statement, readonly (string | number | null)[]];
  let queue: Change[] = [];
  let scheduled = false;
  const writeBatch = db.transaction((changes: readonly Change[]) => {
    for (const [stmt, args] of changes) stmt.run(...args);
  });
  const flush = (): void => {
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    try {
      writeBatch.immediate(batch);
    } catch (e) {
      throw new ChainpilotError(
        'RUNTIME_PAPER_BOOK_WRITE_FAILED',
        `writing ${batch.length} paper book change(s) to the store failed (${describeError(e)}); the book on disk keeps every earlier batch`,
        { retry: 'not_retryable', context: { changes: batch.length }, cause: e },
      );
    }
    options.committed?.();
    if (retentionMs !== undefined && latest - prunedAt >= PRUNE_EVERY_MS) {
      prunedAt = latest;
      try {
        pruneBook(db, latest - retentionMs);
      } catch (e) {
        throw new ChainpilotError(
          'RUNTIME_PAPER_BOOK_WRITE_FAILED',
          `pruning the paper book (paper.bookRetention) failed (${describeError(e)}); the book on disk is unchanged`,
          {
            retry: 'not_retryable',
            cause: e,
          },
        );
      }
    }
  };
  const defer = options.defer ?? ((write: () => void) => void setImmediate(write));
  const endOfTurn = (): void => {
    scheduled = false;
    try {
      flush();
    } catch (e) {
      if (options.onError && isChainpilotError(e)) options.onError(e);
      else throw e;
    }
  };
  const enqueue = (stmt: Database.Statement, args: readonly (string | number | null)[]): void => {
    queue.push([stmt, args]);
    if (queue.length >= MAX_BATCH) flush();
    else if (!scheduled) {
      scheduled = true;
      defer(endOfTurn);
    }
  };
  const resolveArgs = (r: ExecutionReport): (string | number | null)[] | undefined => {
    if (r.type === 'filled') return ['FILLED', encodeFill(r.fill), r.fill.feeLamports.toString(), null, null, r.at, r.intentId];
    if (r.type === 'failed') return ['FAILED', null, r.feeLamports.toString(), r.code, r.reason, r.at, r.intentId];
    if (r.type === 'rejected') return ['REJECTED', null, null, r.code, r.reason, r.at, r.intentId];
    if (r.type === 'expired') return ['EXPIRED', null, null, 'EXPIRED', 'not filled before the executor stopped', r.at, r.intentId];
    return undefined;
  };
  const spentBefore = new Map<string, bigint>();
  for (const row of db
    .prepare<[], { intent_json: string; code: string | null; created_at: number }>('SELECT intent_json, code, created_at FROM paper_intents')
    .all()) {
    if (row.code !== null && ADMISSION_CODES.has(row.code)) continue;
    const day = utcDay(row.created_at);
    spentBefore.set(day, (spentBefore.get(day) ?? 0n) + spendOf(decodeIntent(row.intent_json)));
  }
  return {
    replacedMarket: o.replacedMarket,
    run: o.runs,
    abandoned: o.abandoned,
    spentBefore,
    submitted(intent) {
      enqueue(insert, [intent.id, encodeIntent(intent), intent.createdAt]);
    },
    resolved(r) {
      const args = resolveArgs(r);
      if (r.at > latest) latest = r.at;
      if (args) enqueue(resolve, args);
    },
    flush,
    queued: () => queue.length,
    restored() {
      flush();
      const fills: RestoredFill[] = [];
      const failedFees: RestoredFailedFee[] = [];
      for (const row of resolvedRows.all()) {
        const intent = decodeIntent(row.intent_json);
        if (row.state === 'FILLED' && row.fill_json !== null) {
          // The position opened when the earlier run's engine applied the report (its `at`, kept as resolved_at).
          const fill = decodeFill(row.fill_json);
          fills.push({ strategyId: intent.strategyId, fill, ...(row.resolved_at !== null ? { seenAt: row.resolved_at as UnixMs } : {}) });
        } else if (row.state === 'FAILED' && row.fee_lamports !== null && BigInt(row.fee_lamports) > 0n) {
          failedFees.push({ strategyId: intent.strategyId, mint: intent.mint, feeLamports: lamports(BigInt(row.fee_lamports)) });
        }
      }
      const carry = readCarry(db);
      return { fills, failedFees, ...(carry.intents > 0 ? { carry } : {}) };
    },
  };
}

/**
 * `inner` with every intent and outcome written to `book` first: the intent before the executor
 * sees it, the outcome before the engine applies it (a crash in between restores the outcome).
 */
export function bookedExecutor(inner: Executor, book: PaperBook): Executor {
  return {
    start: (sink) =>
      inner.start((r) => {
        if (r.type !== 'accepted') book.resolved(r);
        sink(r);
      }),
    async submit(intent) {
      book.submitted(intent);
      try {
        await inner.submit(intent);
      } catch (e) {
        book.resolved({
          type: 'rejected',
          intentId: intent.id,
          at: intent.createdAt,
          code: isChainpilotError(e) ? e.code : 'RUNTIME_INVARIANT_BROKEN',
          reason: describeError(e),
        });
        throw e;
      }
    },
    stop: (signal) => inner.stop(signal),
    // A cancel's `rejected` report reaches the book through the sink above.
    ...(inner.cancel ? { cancel: (intentId: string, reason: string) => inner.cancel?.(intentId, reason) ?? false } : {}),
    ...(inner.holdManual ? { holdManual: (intentId: string) => inner.holdManual?.(intentId) } : {}),
  };
}

/**
 * Paper cash after the book's outcomes: the configured starting balance minus what the fills and
 * failed fees took (plus what sells returned). Unlike live, where cash is the wallet's balance.
 */
export function paperCashAfter(startingLamports: bigint, r: PaperRestore): bigint {
  const scratch = createPortfolio(0n);
  for (const f of r.fills) scratch.applyFill(f.strategyId, f.fill);
  for (const f of r.failedFees) scratch.applyFailedFee(f.strategyId, f.mint, lamports(f.feeLamports));
  return startingLamports + scratch.totals().cashLamports + (r.carry?.cashLamports ?? 0n);
}
