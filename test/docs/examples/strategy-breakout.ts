/** The market-aggregates example of docs/strategies.md; checked by test/docs/doc-examples.test.ts, run by test/docs/strategy-docs.test.ts. */
// #region doc
import { defineStrategy, solParam, z } from '../../../src/strategies/api.js';

const params = z.strictObject({
  buySol: solParam.prefault('0.05'),
  windowMs: z.number().int().min(1_000).max(3_600_000).default(60_000),
  minVolumeSol: solParam.prefault('1'),      // SOL bought and sold in the window
  minBuyers: z.number().int().min(1).default(3),
  watchMs: z.number().int().positive().default(10 * 60_000),
});
type Params = z.output<typeof params>;

/** A volume breakout: buys a launched token when its last minute of flow is busy, buyer-led and above its 1-minute EMA. */
export default defineStrategy<Params>({
  id: 'volume-breakout',
  params,
  rooms: () => ['latest'],
  exits: () => ({ takeProfit: [{ multiple: '1.3', sellBps: 10_000 }], stopLossBps: 1_500, timeStopMs: 10 * 60_000 }),
  onStart(ctx) {
    ctx.bars('', '1m');                                      // 1-minute bars of every token from now on
  },
  onLaunch(e, ctx) {
    // the token's rooms and state end together: after watchMs, or once a buy of it fills or fails
    ctx.track(e.mint, { rooms: [`transaction:${e.mint}`, `price:token:${e.mint}`], ttlMs: ctx.params.watchMs });
  },
  onTrade(e, ctx) {
    if (!ctx.tracked(e.mint) || ctx.pending(e.mint).length > 0) return;
    const f = ctx.flow(e.mint, ctx.params.windowMs);         // exact lamports, distinct wallets, VWAP
    if (f.volumeLamports < ctx.params.minVolumeSol || f.buyers < ctx.params.minBuyers || f.netLamports <= 0n) return;
    const ema = ctx.bars(e.mint, '1m').ema(3);               // undefined until 3 bars closed
    if (ema !== undefined && f.vwap !== undefined && Number(f.vwap) < ema) return;   // signals are numbers
    const room = ctx.account(e.mint).maxBuyLamports;         // cash, size, exposure, positions, cooldown
    if (room < ctx.params.buySol) return;
    ctx.buy({ mint: e.mint, lamports: ctx.params.buySol, reason: `flow ${f.volumeLamports} lamports, ${f.buyers} buyers` });
  },
});
// #endregion doc
