/**
 * DCA flow: counts DCA orders opened to buy each token (from the DCA program rooms). When
 * `minOrders` buy orders open for one token within `window`, buy it on its next price.
 */
import { defineStrategy, durationParam, z } from '../api.js';
import { solParam } from '../sol.js';

const params = z.strictObject({
  program: z.string().default('dca_program_a'),
  minOrders: z.number().int().min(1).default(3),
  windowMs: durationParam({ min: 1 }).default(10 * 60_000),
  buySol: solParam.prefault('0.1'),
  /** Token traded against (orders selling this mint count as buys of the other). */
  quoteMint: z.string().default('So11111111111111111111111111111111111111112'),
  /** An armed token waits this long for its next price, then is disarmed (its room released). */
  maxWaitMs: durationParam({ min: 1 }).default(60_000),
  /** At most this many tokens are armed at once; more are skipped. */
  maxWatching: z.number().int().min(1).max(900).default(200),
});
type Params = z.output<typeof params>;

/** Tokens whose orders are counted at once; past it, tokens with no order in the window are forgotten, then the longest counted. */
export const MAX_COUNTED = 10_000;

/** Drops tokens whose last order is older than `before`; then, if still full, the oldest-counted tenth. */
function forgetOld(opened: Map<string, number[]>, before: number): void {
  for (const [mint, times] of opened) if ((times.at(-1) ?? 0) < before) opened.delete(mint);
  if (opened.size < MAX_COUNTED) return;
  let drop = Math.ceil(MAX_COUNTED / 10);
  for (const mint of opened.keys()) {
    if (drop-- <= 0) break;
    opened.delete(mint);
  }
}
interface State {
  readonly opened: Map<string, number[]>;
  readonly armed: Set<string>;
}

export const dcaFlow = defineStrategy<Params, State>({
  id: 'dca-flow',
  description: 'Buys tokens that attract a burst of new DCA buy orders.',
  params,
  rooms: (p) => [`dca:${p.program}:opened`],
  initialState: () => ({ opened: new Map(), armed: new Set() }),
  exits: () => ({ takeProfit: [{ multiple: '1.3', sellBps: 10_000 }], stopLossBps: 1_500, timeStopMs: 30 * 60_000 }),
  onDca(e, ctx) {
    const mint = e.outputMint;
    if (!mint || e.inputMint !== ctx.params.quoteMint) return;
    const now = ctx.clock.now();
    const opened = ctx.state.opened;
    const times = (opened.get(mint) ?? []).filter((t) => now - t <= ctx.params.windowMs);
    times.push(now);
    if (!opened.has(mint) && opened.size >= MAX_COUNTED) forgetOld(opened, now - ctx.params.windowMs);
    opened.set(mint, times);
    if (times.length >= ctx.params.minOrders && !ctx.state.armed.has(mint) && !ctx.position(mint)?.tokenRaw) {
      ctx.state.opened.delete(mint);
      if (ctx.state.armed.size >= ctx.params.maxWatching) return;
      ctx.state.armed.add(mint);
      ctx.watch(`price:token:${mint}`);
      ctx.schedule(ctx.params.maxWaitMs, 'disarm', mint);
    }
  },
  onPrice(e, ctx) {
    if (!ctx.state.armed.delete(e.mint)) return;
    ctx.unwatch(`price:token:${e.mint}`);
    ctx.buy({ mint: e.mint, lamports: ctx.params.buySol, reason: `${ctx.params.minOrders}+ DCA buy orders within ${ctx.params.windowMs} ms` });
  },
  onTimer(t, ctx) {
    const mint = String(t.payload);
    if (ctx.state.armed.delete(mint)) ctx.unwatch(`price:token:${mint}`);
  },
});
