/** Plain JSON views of slots and handles for the control API (bigints as decimal strings). */
import type { z } from 'zod';
import { amountInOf } from '../engine/orders/execution-port.js';
import type { DeploymentHandle, FeedHealth, PendingIntentView } from '../runtime/handle/deployment-handle.js';
import type { deploymentDetailBody, deploymentSummaryBody, feedHealthBody, intentBody } from './api-schemas.js';
import type { SlotView } from './service-port.js';

/** The scope of a summary's numbers (see `summaryScope` in api-schemas.ts). */
export const SUMMARY_SCOPE = { counts: 'since-start', pnl: 'book', maxDrawdown: 'since-start' } as const;

const str = (v: bigint | undefined): string | null => (v === undefined ? null : v.toString());

export function feedView(f: FeedHealth, at: number): z.infer<typeof feedHealthBody> {
  return {
    state: f.state,
    connected: f.connected,
    lastFrameAt: f.lastFrameAt ?? null,
    lastFrameAgeMs: f.lastFrameAt === undefined ? null : Math.max(0, at - f.lastFrameAt),
    framesPerSec: f.framesPerSec,
    frames: f.frames,
    gaps: f.gaps,
    reconnects: f.reconnects,
    rejected: f.rejected,
    rejectedByFamily: { ...f.rejectedByFamily },
    dropped: f.dropped,
    backfillFailures: f.backfillFailures,
  };
}

export function intentView(p: PendingIntentView): z.infer<typeof intentBody> {
  const i = p.intent;
  return {
    id: i.id,
    strategyId: i.strategyId,
    side: i.side,
    mint: i.mint,
    amountIn: amountInOf(i).toString(),
    createdAt: i.createdAt,
    reason: i.reason,
    state: p.state,
  };
}

export function summaryView(slot: SlotView): z.infer<typeof deploymentSummaryBody> {
  const h = slot.handle;
  const summary = h?.summary();
  return {
    name: slot.name,
    file: slot.file,
    mode: slot.mode,
    state: slot.state,
    cause: slot.cause ?? null,
    ready: h?.health().ready ?? false,
    restarts: slot.restarts,
    equityLamports: str(summary?.equityLamports),
    openPositions: summary?.openPositions ?? null,
  };
}

export function detailView(slot: SlotView): z.infer<typeof deploymentDetailBody> {
  const h: DeploymentHandle | undefined = slot.handle;
  if (!h)
    return {
      ...summaryView(slot),
      reasons: slot.cause ? [`${slot.cause.code}: ${slot.cause.message}`] : [],
      feed: null,
      summary: null,
      positions: [],
      pending: [],
      risk: null,
      denialsByCode: {},
    };
  const health = h.health();
  const st = h.stats();
  const s = st.summary;
  const r = st.risk;
  return {
    ...summaryView(slot),
    reasons: [...health.reasons],
    feed: feedView(health.feed, health.at),
    summary: {
      scope: SUMMARY_SCOPE,
      startedAt: s.startedAt ?? null,
      endedAt: s.endedAt,
      events: s.events,
      frames: s.frames,
      badFrames: s.badFrames,
      intents: s.intents,
      fills: s.fills,
      denials: s.denials,
      trades: s.trades,
      wins: s.wins,
      winRate: s.winRate,
      realisedLamports: s.realisedLamports.toString(),
      unrealisedLamports: s.unrealisedLamports.toString(),
      feesLamports: s.feesLamports.toString(),
      equityLamports: s.equityLamports.toString(),
      maxDrawdownLamports: s.maxDrawdownLamports.toString(),
      openPositions: s.openPositions,
      strategyErrors: s.strategyErrors,
    },
    positions: st.positions.map((p) => ({
      strategyId: p.strategyId,
      mint: p.mint,
      tokenRaw: p.tokenRaw.toString(),
      decimals: p.decimals,
      costLamports: p.costLamports.toString(),
      valueLamports: str(p.valueLamports),
      unrealisedLamports: str(p.unrealisedLamports),
      realisedLamports: p.realisedLamports.toString(),
      openedAt: p.openedAt,
      exits: p.exits
        ? {
            entryPrice: p.exits.entryPrice,
            takeProfit: p.exits.takeProfit.map((t) => ({ ...t })),
            stopLossPrice: p.exits.stopLossPrice ?? null,
            trailingStopPrice: p.exits.trailingStopPrice ?? null,
            timeStopAt: p.exits.timeStopAt ?? null,
          }
        : null,
    })),
    pending: st.pending.map(intentView),
    risk: {
      dayStartedAt: r.dayStartedAt,
      dayStartEquityLamports: r.dayStartEquityLamports.toString(),
      dailyLossLamports: r.dailyLossLamports.toString(),
      dailyLossLimitLamports: str(r.dailyLossLimitLamports),
      dailyHalted: r.dailyHalted,
      killed: r.killed,
      killReason: r.killReason ?? null,
      exposureLamports: r.exposureLamports.toString(),
      maxExposureLamports: str(r.maxExposureLamports),
    },
    denialsByCode: { ...st.denialsByCode },
  };
}

/**
 * The rows of `/api/deployments`, kept per slot (issue 31: at a hundred deployments reading every
 * handle's stats per request made most of the request). A row is rebuilt when its slot changed
 * (state, cause, restarts, handle) and otherwise when it is older than `maxAgeMs` (wall time):
 * equity and open positions, which move without a state change, are at most that old. With
 * `maxAgeMs` 0 every request rebuilds every row.
 */
/** Whether a slot's row of `/api/deployments` needs no rebuild for its slot's sake (its state, cause, restarts, handle and file are the same). */
export const sameSummary = (a: SlotView, b: SlotView): boolean =>
  a.state === b.state &&
  a.handle === b.handle &&
  a.restarts === b.restarts &&
  a.file === b.file &&
  a.cause?.code === b.cause?.code &&
  a.cause?.message === b.cause?.message;

export function createSummaryCache(o: { readonly maxAgeMs: number; readonly now?: () => number }): {
  rows(slots: readonly SlotView[]): z.infer<typeof deploymentSummaryBody>[];
} {
  const now = o.now ?? (() => performance.now());
  const rows = new Map<string, { readonly slot: SlotView; readonly at: number; readonly row: z.infer<typeof deploymentSummaryBody> }>();
  return {
    rows(slots) {
      const t = now();
      const out = slots.map((slot) => {
        const c = rows.get(slot.name);
        if (o.maxAgeMs > 0 && c && t - c.at <= o.maxAgeMs && sameSummary(c.slot, slot)) return c.row;
        const row = summaryView(slot);
        rows.set(slot.name, { slot, at: t, row });
        return row;
      });
      // removed slots leave the cache
      if (rows.size > slots.length) {
        const names = new Set(slots.map((s) => s.name));
        for (const name of rows.keys()) if (!names.has(name)) rows.delete(name);
      }
      return out;
    },
  };
}
