/**
 * Curve momentum: when a bonding curve reaches `milestonePct`, watch its holders and safety rooms
 * for `confirmMs`, then buy if the curve kept filling and every filter passes (minimum holders,
 * maximum top-10 / bundler / sniper / dev share).
 */
import { choice, defineStrategy, durationParam, range, type StrategyContext, z } from '../api.js';
import { solParam } from '../sol.js';

const params = z.strictObject({
  market: z.string().default('venue_a'),
  milestonePct: z.number().int().min(1).max(99).default(50),
  buySol: solParam.prefault('0.1'),
  confirmMs: durationParam().default(5_000),
  minHolders: z.number().int().min(0).default(20),
  maxTop10Pct: z.number().min(0).max(100).default(40),
  maxBundlerPct: z.number().min(0).max(100).default(25),
  maxSniperPct: z.number().min(0).max(100).default(25),
  maxDevHoldingPct: z.number().min(0).max(100).default(10),
  /**
   * At most this many tokens are confirmed at once (six rooms each); milestones beyond it are
   * skipped, so a burst of milestones never runs into the room bound.
   */
  maxWatching: z.number().int().min(1).max(150).default(100),
});
type Params = z.output<typeof params>;
/** A token being confirmed: its curve percent at the milestone and the rooms watched for it. */
interface Watch {
  readonly atMilestone: number;
  /** The six room names, written once: released as the same strings (hashed once, never rebuilt). */
  readonly rooms: readonly string[];
}
interface State {
  readonly watching: Map<string, Watch>;
}

const roomsOf = (mint: string): string[] => [
  `holders:${mint}`,
  `top10:${mint}`,
  `bundlers:${mint}`,
  `sniper:${mint}`,
  `dev_holding:${mint}`,
  `price:token:${mint}`,
];

function release(ctx: StrategyContext<Params, State>, mint: string): void {
  const w = ctx.state.watching.get(mint);
  if (w === undefined) return;
  ctx.state.watching.delete(mint);
  for (let i = 0; i < w.rooms.length; i++) ctx.unwatch(w.rooms[i]!);
}

/** Why `mint` fails the filters, or undefined when it passes. */
function failedFilter(ctx: StrategyContext<Params, State>, mint: string): string | undefined {
  const m = ctx.market(mint);
  const p = ctx.params;
  if (!m?.price) return 'no price observed';
  const s = m.safety;
  if ((s.holders ?? 0) < p.minHolders) return `holders ${s.holders ?? 'unknown'} < ${p.minHolders}`;
  if ((s.top10 ?? 0) > p.maxTop10Pct) return `top10 ${s.top10 ?? 0}% > ${p.maxTop10Pct}%`;
  if ((s.bundlers ?? 0) > p.maxBundlerPct) return `bundlers ${s.bundlers ?? 0}% > ${p.maxBundlerPct}%`;
  if ((s.sniper ?? 0) > p.maxSniperPct) return `snipers ${s.sniper ?? 0}% > ${p.maxSniperPct}%`;
  if ((s.dev_holding ?? 0) > p.maxDevHoldingPct) return `dev holding ${s.dev_holding ?? 0}% > ${p.maxDevHoldingPct}%`;
  return undefined;
}

export const curveMomentum = defineStrategy<Params, State>({
  id: 'curve-momentum',
  description: 'Buys a bonding-curve token at a curve milestone when holder and safety filters pass.',
  params,
  // What `chainpilot sweep` searches by default (a recording made at one milestone is silent at the others).
  space: {
    milestonePct: range(30, 70, 10),
    confirmMs: choice(2_000, 5_000, 10_000),
    minHolders: range(10, 40, 10),
    maxTop10Pct: range(30, 50, 10),
  },
  rooms: (p) => [`${p.market}:curve:${p.milestonePct}`],
  initialState: () => ({ watching: new Map() }),
  exits: () => ({
    takeProfit: [
      { multiple: '1.4', sellBps: 5_000 },
      { multiple: '2', sellBps: 10_000 },
    ],
    stopLossBps: 2_000,
    trailingStopBps: 1_500,
    timeStopMs: 15 * 60_000,
    exitOnSafety: { maxBundlerPct: 40, maxDevHoldingPct: 20 },
  }),
  onCurve(e, ctx) {
    if (ctx.state.watching.has(e.mint) || ctx.position(e.mint)?.tokenRaw) return;
    if (ctx.state.watching.size >= ctx.params.maxWatching) {
      ctx.log.debug('skip: too many tokens being confirmed', { mint: e.mint, watching: ctx.state.watching.size });
      return;
    }
    const rooms = roomsOf(e.mint);
    ctx.state.watching.set(e.mint, { atMilestone: ctx.market(e.mint)?.curvePercent ?? e.percent, rooms });
    for (let i = 0; i < rooms.length; i++) ctx.watch(rooms[i]!);
    ctx.schedule(ctx.params.confirmMs, 'decide', e.mint);
  },
  onTimer(t, ctx) {
    const mint = String(t.payload);
    const atMilestone = ctx.state.watching.get(mint)?.atMilestone;
    if (atMilestone === undefined) return;
    const curve = ctx.market(mint)?.curvePercent ?? atMilestone;
    const why = failedFilter(ctx, mint) ?? (curve < atMilestone ? 'curve fell back' : undefined);
    if (why) {
      ctx.log.debug('skip', { mint, why });
      release(ctx, mint);
      return;
    }
    const r = ctx.buy({ mint, lamports: ctx.params.buySol, reason: `curve ${ctx.params.milestonePct}% with filters passed` });
    if (!r.ok) release(ctx, mint);
  },
  onFill(fill, ctx) {
    if (fill.side === 'buy' && ctx.state.watching.has(fill.mint)) release(ctx, fill.mint);
  },
  // A buy that never filled releases its rooms too (otherwise every unfilled buy holds six rooms).
  onIntentFailed(e, ctx) {
    if (e.side === 'buy' && ctx.state.watching.has(e.mint)) release(ctx, e.mint);
  },
});
