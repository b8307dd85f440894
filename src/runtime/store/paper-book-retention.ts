/**
 * A paper book's retention (`paper.bookRetention`, docs/configuration.md): the book keeps every
 * intent a restart needs and forgets the rest once older than the retention, on the run clock.
 *
 * - An intent that ended without a fill or a fee (rejected, expired, failed free) is deleted once
 *   it resolved longer ago than the retention: a restart reads it only for the spend of its day,
 *   and the retention is at least a day, so today's spend is never touched.
 * - The fills and failed fees of a **closed** position (its tokens back to zero) whose last row
 *   resolved longer ago than the retention are folded into the book's carry (`paper_carry`: the
 *   sums of cash, realised PnL and fees they added, replayed on a scratch portfolio, so exact) and
 *   deleted. A restart starts its portfolio from the carry and replays the rows kept: cash, realised
 *   PnL and fees are those of a book that kept everything. The forgotten position itself is gone, as
 *   one beyond the portfolio's latest 1,024 closed ones is (`MAX_CLOSED_POSITIONS`): a later buy of
 *   the token opens a fresh position (realised 0).
 * - A position still open keeps every row since it last opened, however old.
 *
 * A prune is one transaction: a crash before its commit leaves the rows, after it the carry; both
 * restore the same totals.
 */
import type Database from 'better-sqlite3';
import type { CarriedTotals } from '../../engine/market/portfolio.js';
import { createPortfolio } from '../../engine/market/portfolio.js';
import { decodeFill, decodeIntent } from '../../executors/journal/codec.js';
import { lamports } from '../../core/index.js';

/** The carry table: one row, signed lamports as decimal strings. */
export const PAPER_CARRY_MIGRATION = `
CREATE TABLE IF NOT EXISTS paper_carry (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  cash_lamports TEXT NOT NULL,
  realised_lamports TEXT NOT NULL,
  fees_lamports TEXT NOT NULL,
  intents INTEGER NOT NULL
);
`;

/** The carry of a book and how many intents it folded. */
export interface PaperCarry extends CarriedTotals {
  readonly intents: number;
}

export const NO_CARRY: PaperCarry = { cashLamports: 0n, realisedLamports: 0n, feesLamports: 0n, intents: 0 };

/** What one prune did. */
export interface PruneResult {
  /** Intents deleted without a trace (no fill, no fee). */
  readonly dropped: number;
  /** Intents folded into the carry (fills and fees of closed positions). */
  readonly folded: number;
}

interface ResolvedRow {
  readonly id: string;
  readonly intent_json: string;
  readonly state: string;
  readonly fill_json: string | null;
  readonly fee_lamports: string | null;
}

/** The book's carry (zero when nothing was folded yet). */
export function readCarry(db: Database.Database): PaperCarry {
  const row = db
    .prepare<[], { cash_lamports: string; realised_lamports: string; fees_lamports: string; intents: number }>(
      'SELECT cash_lamports, realised_lamports, fees_lamports, intents FROM paper_carry WHERE id = 1',
    )
    .get();
  if (!row) return NO_CARRY;
  return {
    cashLamports: BigInt(row.cash_lamports),
    realisedLamports: BigInt(row.realised_lamports),
    feesLamports: BigInt(row.fees_lamports),
    intents: row.intents,
  };
}

/**
 * Forgets what resolved before `horizon` (run-clock ms) as the module comment says, in one
 * transaction. Reads only the rows older than the horizon.
 */
export function pruneBook(db: Database.Database, horizon: number): PruneResult {
  return db
    .transaction((): PruneResult => {
      const dropped = db
        .prepare(
          "DELETE FROM paper_intents WHERE resolved_at < ? AND (state IN ('REJECTED', 'EXPIRED') OR (state = 'FAILED' AND (fee_lamports IS NULL OR CAST(fee_lamports AS INTEGER) = 0)))",
        )
        .run(horizon).changes;
      const rows = db
        .prepare<[number], ResolvedRow>(
          "SELECT id, intent_json, state, fill_json, fee_lamports FROM paper_intents WHERE resolved_at < ? AND state IN ('FILLED', 'FAILED') ORDER BY resolved_seq",
        )
        .all(horizon);
      // per position (strategy and mint): its rows so far, and the count of those ending with the position closed
      const byKey = new Map<string, { rows: ResolvedRow[]; held: bigint; closedAt: number }>();
      for (const r of rows) {
        const intent = decodeIntent(r.intent_json);
        const key = `${intent.strategyId}\u0000${intent.mint}`;
        const k = byKey.get(key) ?? { rows: [], held: 0n, closedAt: 0 };
        byKey.set(key, k);
        k.rows.push(r);
        if (r.state === 'FILLED' && r.fill_json !== null) {
          const f = decodeFill(r.fill_json);
          const raw: bigint = f.tokenAmount;
          k.held += f.side === 'buy' ? raw : -raw;
        }
        if (k.held === 0n) k.closedAt = k.rows.length;
      }
      const fold = new Set<ResolvedRow>();
      for (const k of byKey.values()) for (const r of k.rows.slice(0, k.closedAt)) fold.add(r);
      if (fold.size === 0) return { dropped, folded: 0 };
      const folded = rows.filter((r) => fold.has(r)); // in the order they resolved
      const scratch = createPortfolio(0n);
      for (const r of folded) {
        const intent = decodeIntent(r.intent_json);
        if (r.state === 'FILLED' && r.fill_json !== null) scratch.applyFill(intent.strategyId, decodeFill(r.fill_json));
        else if (r.fee_lamports !== null && BigInt(r.fee_lamports) > 0n)
          scratch.applyFailedFee(intent.strategyId, intent.mint, lamports(BigInt(r.fee_lamports)));
      }
      const t = scratch.totals();
      const before = readCarry(db);
      db.prepare(
        'INSERT INTO paper_carry (id, cash_lamports, realised_lamports, fees_lamports, intents) VALUES (1, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET cash_lamports = excluded.cash_lamports, realised_lamports = excluded.realised_lamports, fees_lamports = excluded.fees_lamports, intents = excluded.intents',
      ).run(
        (before.cashLamports + t.cashLamports).toString(),
        (before.realisedLamports + t.realisedLamports).toString(),
        (before.feesLamports + t.feesLamports).toString(),
        before.intents + folded.length,
      );
      const del = db.prepare('DELETE FROM paper_intents WHERE id = ?');
      for (const r of folded) del.run(r.id);
      return { dropped, folded: folded.length };
    })
    .immediate();
}
