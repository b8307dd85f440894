/**
 * A user strategy, loaded from the deployment by path (`use: ./strategies/dip-buyer.ts`).
 * It buys launched tokens after their price dips a given share below the high seen since launch,
 * once their holder count passes a minimum, and lets the exit rules manage the position.
 */
import { defineStrategy, solParam, z } from '../../src/strategies/api.js';

const params = z.strictObject({
  /** SOL per buy, exact ("0.05"): lamports as a bigint, never a float. */
  buySol: solParam.prefault('0.05'),
  dipBps: z.number().int().min(100).max(9_000).default(2_000),
  minHolders: z.number().int().min(0).default(15),
  /** Stop watching a token this long after launch. */
  watchMs: z.number().int().positive().default(10 * 60_000),
});
type Params = z.output<typeof params>;

interface State {
  /** Highest price seen per watched token. */
  readonly highs: Map<string, number>;
}

export default defineStrategy<Params, State>({
  id: 'dip-buyer',
  description: 'Buys a dip below the post-launch high once enough wallets hold the token.',
  params,
  rooms: () => ['latest'],
  initialState: () => ({ highs: new Map() }),
  exits: () => ({ takeProfit: [{ multiple: '1.25', sellBps: 10_000 }], stopLossBps: 1_500, timeStopMs: 15 * 60_000 }),

  onLaunch(e, ctx) {
    ctx.state.highs.set(e.mint, 0);
    ctx.watch(`price:token:${e.mint}`);
    ctx.watch(`holders:${e.mint}`);
    ctx.schedule(ctx.params.watchMs, 'forget', e.mint);
  },

  onPrice(e, ctx) {
    const high = ctx.state.highs.get(e.mint);
    if (high === undefined || ctx.position(e.mint)?.tokenRaw) return;
    const price = Number(e.price); // a signal, not money: amounts stay exact in the engine
    if (price > high) {
      ctx.state.highs.set(e.mint, price);
      return;
    }
    const holders = ctx.market(e.mint)?.safety.holders ?? 0;
    if (holders < ctx.params.minHolders || price > high * (1 - ctx.params.dipBps / 10_000)) return;
    const r = ctx.buy({ mint: e.mint, lamports: ctx.params.buySol, reason: `dip ${ctx.params.dipBps} bps below high with ${holders} holders` });
    if (r.ok) forget(ctx, e.mint);
    else ctx.log.debug('buy denied', { mint: e.mint, code: r.code });
  },

  onTimer(t, ctx) {
    forget(ctx, String(t.payload));
  },
});

function forget(ctx: { state: State; unwatch(room: string): void }, mint: string): void {
  if (!ctx.state.highs.delete(mint)) return;
  ctx.unwatch(`price:token:${mint}`);
  ctx.unwatch(`holders:${mint}`);
}
