/**
 * Graduation sniper: when a token graduates from its bonding curve to its AMM pool, join its price
 * room and buy on the first AMM price seen within `maxEntryDelayMs`.
 */
import { defineStrategy, durationParam, z } from '../api.js';
import { solParam } from '../sol.js';

interface State {
  /** Graduated tokens waiting for their first AMM price: mint → graduation seen at. */
  readonly waiting: Map<string, number>;
}

const params = z.strictObject({
  buySol: solParam.prefault('0.1'),
  maxEntryDelayMs: durationParam({ min: 1 }).default(30_000),
  /** Only graduations to these markets (for example venue_a-amm); all when absent. */
  markets: z.array(z.string()).optional(),
  /**
   * At most this many graduated tokens wait for their first price at once (one price room each);
   * graduations beyond it are skipped, so a storm of graduations never runs into the room bound.
   */
  maxWatching: z.number().int().min(1).max(900).default(200),
});

export const graduationSniper = defineStrategy<z.output<typeof params>, State>({
  id: 'graduation-sniper',
  description: 'Buys tokens right after they graduate to their AMM pool.',
  params,
  rooms: () => ['graduated'],
  initialState: () => ({ waiting: new Map() }),
  exits: () => ({
    takeProfit: [
      { multiple: '1.5', sellBps: 5_000 },
      { multiple: '2.5', sellBps: 10_000 },
    ],
    stopLossBps: 2_500,
    trailingStopBps: 2_000,
    timeStopMs: 20 * 60_000,
  }),
  onGraduated(e, ctx) {
    if (ctx.params.markets && (e.market === undefined || !ctx.params.markets.includes(e.market))) return;
    if (ctx.position(e.mint)?.tokenRaw || ctx.state.waiting.has(e.mint)) return;
    if (ctx.state.waiting.size >= ctx.params.maxWatching) {
      ctx.log.debug('skip: too many graduations waiting for a price', { mint: e.mint, waiting: ctx.state.waiting.size });
      return;
    }
    ctx.state.waiting.set(e.mint, ctx.clock.now());
    ctx.watch(`price:token:${e.mint}`);
    ctx.schedule(ctx.params.maxEntryDelayMs, 'give-up', e.mint);
  },
  onPrice(e, ctx) {
    const since = ctx.state.waiting.get(e.mint);
    if (since === undefined) return;
    ctx.state.waiting.delete(e.mint);
    const r = ctx.buy({ mint: e.mint, lamports: ctx.params.buySol, reason: `graduated ${ctx.clock.now() - since} ms ago` });
    if (!r.ok) ctx.unwatch(`price:token:${e.mint}`);
  },
  onFill(fill, ctx) {
    if (fill.side === 'buy') ctx.unwatch(`price:token:${fill.mint}`);
  },
  // A buy that never filled leaves the price room too (an open position keeps its own).
  onIntentFailed(e, ctx) {
    if (e.side === 'buy') ctx.unwatch(`price:token:${e.mint}`);
  },
  onTimer(t, ctx) {
    const mint = String(t.payload);
    if (ctx.state.waiting.delete(mint)) ctx.unwatch(`price:token:${mint}`);
  },
});
