/**
 * Copy trader: follows chosen wallets through their live PnL rooms (`pnl:{wallet}`). When a
 * followed wallet buys a token, buy `copySol` of it; when it sells, sell ours.
 */
import { defineStrategy, durationParam, type WalletPnlUpdated, z } from '../api.js';
import { solParam } from '../sol.js';

const params = z.strictObject({
  wallets: z.array(z.string().min(1)).min(1, 'follow at least one wallet'),
  copySol: solParam.prefault('0.05'),
  /** Copy sells too (sell all when a followed wallet sells). */
  copySells: z.boolean().default(true),
  /** A copied buy waits this long for the token's first price, then is dropped (its room released). */
  maxWaitMs: durationParam({ min: 1 }).default(60_000),
  /** At most this many copied buys wait for a price at once; more are skipped. */
  maxWatching: z.number().int().min(1).max(900).default(200),
});
type Params = z.output<typeof params>;
interface State {
  readonly pendingBuys: Map<string, string>;
}

/** Reads `{ token|mint, side|type: buy|sell }` of a trade update, tolerating either naming. */
function tradeOf(e: WalletPnlUpdated): { mint: string; side: 'buy' | 'sell' } | undefined {
  const d = e.data;
  const mint = typeof d['token'] === 'string' ? d['token'] : typeof d['mint'] === 'string' ? d['mint'] : e.mint;
  const side = d['side'] ?? d['tradeType'] ?? (d['type'] === 'buy' || d['type'] === 'sell' ? d['type'] : undefined);
  if (!mint || (side !== 'buy' && side !== 'sell')) return undefined;
  return { mint, side };
}

export const copyTrader = defineStrategy<Params, State>({
  id: 'copy-trader',
  description: 'Mirrors the buys and sells of chosen wallets.',
  params,
  rooms: (p) => p.wallets.map((w) => `pnl:${w}`),
  initialState: () => ({ pendingBuys: new Map() }),
  exits: () => ({ stopLossBps: 3_000, timeStopMs: 60 * 60_000 }),
  onWalletPnl(e, ctx) {
    const t = tradeOf(e);
    if (!t) return;
    if (t.side === 'buy') {
      if (ctx.position(t.mint)?.tokenRaw || ctx.state.pendingBuys.has(t.mint)) return;
      if (ctx.market(t.mint)?.price) {
        ctx.buy({ mint: t.mint, lamports: ctx.params.copySol, reason: `copy buy of ${e.wallet}` });
        return;
      }
      if (ctx.state.pendingBuys.size >= ctx.params.maxWatching) {
        ctx.log.debug('skip: too many copied buys waiting for a price', { mint: t.mint });
        return;
      }
      ctx.state.pendingBuys.set(t.mint, e.wallet);
      ctx.watch(`price:token:${t.mint}`);
      ctx.schedule(ctx.params.maxWaitMs, 'give-up', t.mint);
    } else if (ctx.params.copySells && ctx.position(t.mint)?.tokenRaw) {
      ctx.sell({ mint: t.mint, reason: `copy sell of ${e.wallet}` });
    }
  },
  onPrice(e, ctx) {
    const wallet = ctx.state.pendingBuys.get(e.mint);
    if (wallet === undefined) return;
    ctx.state.pendingBuys.delete(e.mint);
    ctx.unwatch(`price:token:${e.mint}`);
    ctx.buy({ mint: e.mint, lamports: ctx.params.copySol, reason: `copy buy of ${wallet}` });
  },
  onTimer(t, ctx) {
    const mint = String(t.payload);
    if (ctx.state.pendingBuys.delete(mint)) ctx.unwatch(`price:token:${mint}`);
  },
});
