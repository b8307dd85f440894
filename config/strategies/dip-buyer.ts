/**
 * A user strategy, loaded from the deployment by path (`use: ./strategies/dip-buyer.ts`).
 * It buys launched tokens after their price dips a given share below the high seen since launch,
 * once their holder count passes a minimum, and lets the exit rules manage the position.
 * This file is the complete example of docs/strategies.md (a test runs it from the guide).
 */
import { defineStrategy, durationParam, rooms, solParam, z } from '../../src/strategies/api.js';

const params = z.strictObject({
  buySol: solParam.prefault('0.05'),              // exact SOL -> lamports (bigint), never a float
  dipBps: z.number().int().min(100).max(9_000).default(2_000),
  minHolders: z.number().int().min(0).default(15),
  watchMs: durationParam({ min: 1 }).default(10 * 60_000), // 600000 or "10m"
});
type Params = z.output<typeof params>;
interface State { readonly highs: Map<string, number> }

export default defineStrategy<Params, State>({
  id: 'dip-buyer',
  description: 'Buys a dip below the post-launch high once enough wallets hold the token.',
  params,
  rooms: () => ['latest'],                                   // joined at start
  initialState: () => ({ highs: new Map() }),
  exits: () => ({ takeProfit: [{ multiple: '1.25', sellBps: 10_000 }], stopLossBps: 1_500, timeStopMs: 15 * 60_000 }),

  onLaunch(e, ctx) {
    ctx.state.highs.set(e.mint, 0);
    // join rooms on demand; they are left after ttlMs, or when a position in the token closes
    ctx.watch(rooms.price(e.mint), { ttlMs: ctx.params.watchMs });   // built, not concatenated
    ctx.watch(rooms.holders(e.mint), { ttlMs: ctx.params.watchMs });
    ctx.schedule(ctx.params.watchMs, 'forget', e.mint);      // onTimer on the engine clock
  },
  onPrice(e, ctx) {
    const high = ctx.state.highs.get(e.mint);
    // held, or a buy still in flight: nothing to do (a second buy would be denied anyway)
    if (high === undefined || ctx.position(e.mint)?.tokenRaw || ctx.pending(e.mint).length > 0) return;
    const price = Number(e.price);                           // a signal, not money: amounts stay exact
    if (price > high) { ctx.state.highs.set(e.mint, price); return; }
    const holders = ctx.market(e.mint)?.safety.holders ?? 0;
    if (holders < ctx.params.minHolders || price > high * (1 - ctx.params.dipBps / 10_000)) return;
    // the risk limits' room (cash, size, exposure, positions, cooldown): skip rather than be denied
    if (ctx.account(e.mint).maxBuyLamports < ctx.params.buySol) return;
    const r = ctx.buy({ mint: e.mint, lamports: ctx.params.buySol, reason: `dip with ${holders} holders` });
    if (!r.ok) ctx.log.debug('buy denied', { mint: e.mint, code: r.code });   // denials are values
  },
  onFill(f, ctx) {
    if (f.side === 'buy') ctx.state.highs.delete(f.mint);     // the exit rules manage it from here
  },
  onIntentFailed(f, ctx) {
    ctx.log.info('order did not fill', { mint: f.mint, outcome: f.outcome, code: f.code });
  },
  onTimer(t, ctx) {
    ctx.state.highs.delete(String(t.payload));               // the rooms leave by their ttlMs
  },
});
