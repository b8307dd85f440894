import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lamports, manualClock, seededRandom, type Lamports, type RawAmount, type UnixMs } from '../../src/core/index.js';
import type { ExecutionSink, Executor, Fill, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { createEngine, type EngineOptions } from '../../src/engine/engine.js';
import type { ExitRules } from '../../src/engine/exits/exit-rules.js';
import type { MarketView } from '../../src/engine/market/market-view.js';
import { defineStrategy, type IntentFailed, type PendingIntent, type StrategyDefinition } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { fakeFeed } from './fake-feed.js';
import { priceFrame, wire } from './wire.js';

const SOL = 1_000_000_000n;

/** Buys 1 SOL of every launched token. */
const buyEveryLaunch = defineStrategy({
  id: 'buyer',
  params: z.strictObject({ lamports: z.bigint().default(SOL) }),
  rooms: () => ['latest'],
  onLaunch(e, ctx) {
    ctx.buy({ mint: e.mint, lamports: ctx.params.lamports, reason: 'launch' });
  },
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any strategy's parameter and state types
type AnyStrategy = StrategyDefinition<any, any>;

function setup(strategies: { def: AnyStrategy; exits?: ExitRules; id?: string }[], extra: Partial<EngineOptions> = {}) {
  const clock = manualClock(1_700_000_000_000);
  const feed = fakeFeed(clock);
  const log = memoryDecisionLog();
  const engineRef: { market?: MarketView } = {};
  const executor = createPaperExecutor({ clock, market: { get: (m) => engineRef.market?.get(m) }, latencyMs: 200 });
  const engine = createEngine({
    feed,
    executor,
    clock,
    random: seededRandom(7),
    strategies: strategies.map((s) => instantiateStrategy(s.def, {}, { id: s.id, exits: s.exits })),
    risk: { maxOpenPositions: 5 },
    startingCashLamports: 100n * SOL,
    execution: { slippageBps: 2_000, priorityFeeLamports: lamports(10_000n), defaultDecimals: 6 },
    decisions: log.sink,
    ...extra,
  });
  engineRef.market = engine.market;
  const launch = (mint: string) => {
    feed.push('latest', { token: { mint, symbol: mint, name: mint, decimals: 6 }, pools: [{ market: 'venue_a', poolId: `${mint}-curve` }] });
  };
  // Price frames reach the engine whether or not a strategy joined the room (as a watched token's would).
  const price = (mint: string, p: number) => engine.ingest(wire(`price:token:${mint}`, priceFrame(p, { pool: `${mint}-curve` }), clock.now()));
  return { clock, feed, log, engine, executor, launch, price };
}

describe('engine', () => {
  it('restores positions from earlier fills with exact cost and realised PnL, keeps cash, and re-arms price rooms and exit rules', async () => {
    const fill = (intentId: string, side: 'buy' | 'sell', sol: bigint, tokens: bigint, at: number): Fill => ({
      intentId,
      side,
      mint: 'R',
      decimals: 6,
      solAmount: sol as Lamports,
      tokenAmount: tokens as RawAmount,
      feeLamports: 10_000n as Lamports,
      price: '0.0001',
      filledAt: at as UnixMs,
    });
    const restoredFills = [
      { strategyId: 'buyer', fill: fill('i1', 'buy', 2n * SOL, 20_000_000_000n, 1_699_999_000_000) },
      { strategyId: 'buyer', fill: fill('i2', 'sell', SOL + SOL / 2n, 10_000_000_000n, 1_699_999_500_000) },
    ];
    const fresh = setup([{ def: buyEveryLaunch, id: 'buyer', exits: { timeStopMs: 3_600_000 } }]);
    fresh.engine.portfolio.applyFill('buyer', restoredFills[0]!.fill);
    fresh.engine.portfolio.applyFill('buyer', restoredFills[1]!.fill);
    const expected = fresh.engine.portfolio.position('buyer', 'R')!;

    const t = setup([{ def: buyEveryLaunch, id: 'buyer', exits: { timeStopMs: 3_600_000 } }], { restoredFills });
    expect(t.engine.portfolio.totals().cashLamports).toBe(100n * SOL);
    const p = t.engine.portfolio.position('buyer', 'R')!;
    expect(p.tokenRaw).toBe(10_000_000_000n);
    expect([p.costLamports, p.realisedLamports, p.feesLamports]).toEqual([expected.costLamports, expected.realisedLamports, expected.feesLamports]);
    await t.engine.start();
    expect(t.feed.joined()).toContain('price:token:R');
    expect(t.clock.pending()).toBeGreaterThan(0);
  });
  it('forgets a token with no event for engine.marketRetention on the run clock, and keeps the one it holds', async () => {
    const t = setup([{ def: buyEveryLaunch }], { marketRetentionMs: 60_000 });
    await t.engine.start();
    t.price('A', 0.0001);
    t.launch('A');
    t.clock.advance(200);
    expect(t.engine.portfolio.open()).toHaveLength(1);
    t.price('B', 0.0002);
    t.clock.advance(60_000);
    t.price('C', 0.0003); // B idle for exactly the retention: kept
    expect(t.engine.market.get('B')?.price).toBe('0.0002');
    t.clock.advance(1);
    t.price('D', 0.0003);
    expect(t.engine.market.get('B')).toBeUndefined();
    expect(t.engine.market.get('A')?.price).toBe('0.0001');
    await t.engine.stop();
  });
  it('joins declared rooms, buys through the paper executor after its latency and joins the price room of the new position', async () => {
    const t = setup([{ def: buyEveryLaunch }]);
    await t.engine.start();
    expect(t.feed.joined()).toEqual(['latest']);
    // The buy needs an observed price: a price tick arrives before the launch frame is acted on.
    t.engine.ingest(wire('price:token:A', priceFrame(0.0001), t.clock.now()));
    t.launch('A');
    expect(t.executor.inFlight()).toBe(1);
    t.clock.advance(199);
    expect(t.engine.portfolio.open()).toHaveLength(0);
    t.clock.advance(1);
    const [p] = t.engine.portfolio.open();
    expect(p).toMatchObject({ strategyId: 'buyer', mint: 'A' });
    expect(p!.tokenRaw).toBeGreaterThan(0n);
    expect(t.feed.joined()).toEqual(['latest', 'price:token:A']);
    expect(t.engine.portfolio.totals().cashLamports).toBe(100n * SOL - SOL - 15_000n);
    await t.engine.stop();
    expect(t.feed.joined()).toEqual([]);
  });

  it('joins the price room of a token bought without a known price, and fills on its first tick', async () => {
    const t = setup([{ def: buyEveryLaunch }]);
    await t.engine.start();
    t.launch('A');
    expect(t.feed.joined()).toEqual(['latest', 'price:token:A']);
    t.clock.advance(1_000);
    expect(t.engine.portfolio.open()).toHaveLength(0);
    t.feed.push('price:token:A', priceFrame(0.0001));
    t.clock.advance(100);
    expect(t.engine.portfolio.open()).toHaveLength(1);
  });

  it('hands a buy of a token without a price to the executor before joining its price room, so the join is off the decision path', async () => {
    const joinedAtSubmit: string[][] = [];
    const feedRef: { history: readonly string[] } = { history: [] };
    const executor: Executor = {
      start: () => Promise.resolve(),
      submit: () => {
        joinedAtSubmit.push([...feedRef.history]);
        return Promise.resolve();
      },
      stop: () => Promise.resolve(),
    };
    const t = setup([{ def: buyEveryLaunch }], { executor });
    feedRef.history = t.feed.history;
    await t.engine.start();
    t.launch('A');
    expect(joinedAtSubmit).toEqual([['join latest']]);
    expect(t.feed.joined()).toEqual(['latest', 'price:token:A']);
  });

  it('does not join the price room of a buy the executor resolved during its submit', async () => {
    let sink: ExecutionSink | undefined;
    const executor: Executor = {
      start: (s) => {
        sink = s;
        return Promise.resolve();
      },
      submit: (i) => {
        sink?.({ type: 'expired', intentId: i.id, at: 0 as UnixMs });
        return Promise.resolve();
      },
      stop: () => Promise.resolve(),
    };
    const t = setup([{ def: buyEveryLaunch }], { executor });
    await t.engine.start();
    t.launch('A');
    expect(t.feed.history).toEqual(['join latest']);
  });

  it('tells the strategy when a buy is rejected, with the code, and leaves cash and rooms as they were', async () => {
    const failed: IntentFailed[] = [];
    const def = defineStrategy({ ...buyEveryLaunch, id: 'told', onIntentFailed: (e) => void failed.push(e) });
    const t = setup([{ def }]);
    await t.engine.start();
    t.launch('A');
    t.clock.advance(10_500);
    expect(failed).toEqual([expect.objectContaining({ mint: 'A', side: 'buy', outcome: 'rejected', code: 'PAPER_NO_PRICE' })]);
    expect(t.engine.portfolio.totals().cashLamports).toBe(100n * SOL);
    expect(t.feed.joined()).toEqual(['latest']);
    expect(t.log.lines.at(-1)).toContain('PAPER_NO_PRICE');
  });

  it('denies a second buy of a token while the first is unresolved, shows it in ctx.pending, and allows it on opt-in', async () => {
    const results: { ok: boolean; code?: string; pending: number }[] = [];
    const def = defineStrategy({
      id: 'eager',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(e, ctx) {
        for (const allowConcurrent of [false, false, true]) {
          const r = ctx.buy({ mint: e.mint, lamports: SOL, reason: 'x', allowConcurrent });
          results.push({ ok: r.ok, ...(r.ok ? {} : { code: r.code }), pending: ctx.pending(e.mint).length });
        }
      },
    });
    const t = setup([{ def }]);
    await t.engine.start();
    t.price('A', 0.0001);
    t.launch('A');
    expect(results).toEqual([
      { ok: true, pending: 1 },
      { ok: false, code: 'ENGINE_BUY_IN_FLIGHT', pending: 1 },
      { ok: true, pending: 2 },
    ]);
  });

  it('watches the safety rooms its exit rules use for every open position, and leaves them and the token rooms it watched when the position closes', async () => {
    const def = defineStrategy({
      id: 'watcher',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(e, ctx) {
        ctx.watch(`holders:${e.mint}`);
        ctx.watch(`pnl:W:summary`, { ttlMs: 60_000 });
        ctx.buy({ mint: e.mint, lamports: SOL, reason: 'x' });
      },
    });
    const t = setup([{ def, exits: { exitOnSafety: { maxInsiderPct: 30 }, stopLossBps: 5_000 } }]);
    await t.engine.start();
    t.price('A', 0.0001);
    t.launch('A');
    t.clock.advance(300);
    expect(t.feed.joined()).toEqual(['holders:A', 'insider:A', 'latest', 'pnl:W:summary', 'price:token:A']);
    // the insider room reports its own total; above the limit the position is sold
    t.feed.push('insider:A', { totalSniperPercentage: 5, totalInsiderPercentage: 45 });
    t.clock.advance(300);
    expect(t.engine.portfolio.open()).toHaveLength(0);
    expect(t.feed.joined()).toEqual(['latest', 'pnl:W:summary']);
    t.clock.advance(60_000);
    expect(t.feed.joined()).toEqual(['latest']);
  });

  it('dispatches each event to strategies in deployment order and isolates a throwing strategy until it is halted', async () => {
    const seen: string[] = [];
    const mk = (id: string, throws: boolean) =>
      defineStrategy({
        id,
        params: z.strictObject({}),
        rooms: () => ['latest'],
        onLaunch(e) {
          seen.push(`${id}:${e.mint}`);
          if (throws) throw new Error(`boom in ${id}`);
        },
      });
    const t = setup([{ def: mk('first', true) }, { def: mk('second', false) }], { errorPolicy: { maxErrors: 2, windowMs: 60_000 } });
    await t.engine.start();
    t.launch('A');
    t.launch('B');
    t.launch('C');
    expect(seen).toEqual(['first:A', 'second:A', 'first:B', 'second:B', 'second:C']);
    expect(t.engine.stats.errorsOf('first')).toBe(2);
    expect(t.engine.stats.recentErrors[0]).toMatchObject({ where: 'first.onLaunch', error: 'Error: boom in first' });
  });

  it('counts an async handler rejection as a strategy error', async () => {
    const def = defineStrategy({
      id: 'async',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      async onLaunch() {
        await Promise.resolve();
        throw new Error('late');
      },
    });
    const t = setup([{ def }]);
    await t.engine.start();
    t.launch('A');
    await new Promise((r) => setImmediate(r));
    expect(t.engine.stats.errorsOf('async')).toBe(1);
  });

  it('counts and skips a frame it cannot map without stopping later frames', async () => {
    const t = setup([{ def: buyEveryLaunch }]);
    await t.engine.start();
    // the room registry rejects a launch without a mint before the engine sees it
    t.feed.push('latest', { token: { symbol: 'no mint' } });
    expect(t.feed.rejected).toEqual(['latest: token.mint must be a non-empty string']);
    // a USD-only aggregated price before any SOL/USD rate cannot become a SOL price
    t.engine.ingest(wire('price:aggregated:Z', { token: 'Z', timestamp: 1, price: 1, pool: 'P' }, t.clock.now()));
    t.price('A', 0.0001);
    t.launch('A');
    expect(t.engine.stats.badFrames).toBe(1);
    expect(t.engine.stats.recentBadFrames[0]?.error).toContain('ENGINE_BAD_FRAME');
    expect(t.executor.inFlight()).toBe(1);
  });

  it('takes partial profit at each level once, then exits the rest on the trailing stop', async () => {
    const t = setup([
      {
        def: buyEveryLaunch,
        exits: {
          takeProfit: [
            { multiple: '2', sellBps: 5_000 },
            { multiple: '3', sellBps: 5_000 },
          ],
          trailingStopBps: 2_000,
        },
      },
    ]);
    await t.engine.start();
    t.engine.ingest(wire('price:token:A', priceFrame(0.0001), t.clock.now()));
    t.launch('A');
    t.clock.advance(200);
    const bought = t.engine.portfolio.open()[0]!.tokenRaw;
    t.price('A', 0.00025);
    t.price('A', 0.00026);
    t.clock.advance(200);
    expect(t.engine.portfolio.open()[0]!.tokenRaw).toBe(bought - bought / 2n);
    t.price('A', 0.0004);
    t.clock.advance(200);
    const left = t.engine.portfolio.open()[0]!.tokenRaw;
    expect(left).toBe(bought - bought / 2n - (bought - bought / 2n) / 2n);
    t.price('A', 0.00031); // 22.5 % below the 0.0004 high
    t.clock.advance(200);
    expect(t.engine.portfolio.open()).toHaveLength(0);
    const reasons = t.log.lines
      .filter((l) => l.includes('"kind":"intent"') && l.includes('"side":"sell"'))
      .map((l) => (JSON.parse(l) as { reason: string }).reason);
    expect(reasons).toEqual(['take profit 2x (level 1)', 'take profit 3x (level 2)', expect.stringContaining('trailing stop 2000 bps')]);
    expect(t.engine.stats.summary()).toMatchObject({ trades: 1, wins: 1 });
  });

  it('denies a buy within the cooldown after its last buy, with other tokens bought and forgotten in between', async () => {
    const t = setup([{ def: buyEveryLaunch, id: 'buyer' }], { risk: { maxOpenPositions: 50, cooldownMs: 60_000 } });
    await t.engine.start();
    const cooldownDenials = () => t.log.lines.filter((l) => l.includes('"kind":"denied"') && l.includes('RISK_COOLDOWN')).length;
    for (const m of ['A', 'B0', 'B1', 'B2', 'B3', 'B4', 'C']) t.price(m, 0.0001);
    t.launch('A');
    t.clock.advance(200);
    expect(t.engine.portfolio.position('buyer', 'A')?.tokenRaw).toBeGreaterThan(0n);
    // other tokens bought later: each buy forgets last buys older than two cooldowns and a minute
    for (let i = 0; i < 5; i++) {
      t.launch(`B${i}`);
      t.clock.advance(5_000);
    }
    t.launch('A');
    expect(cooldownDenials()).toBe(1);
    t.clock.advance(200_000);
    t.launch('C'); // A's last buy is now past every window and forgotten; the cooldown is over either way
    t.clock.advance(200);
    t.launch('A');
    t.clock.advance(200);
    expect(cooldownDenials()).toBe(1);
    expect(t.engine.portfolio.position('buyer', 'A')?.tokenRaw).toBe(2n * t.engine.portfolio.position('buyer', 'B0')!.tokenRaw);
  });

  it('exits on stop loss, on the time stop and on a safety signal while holding', async () => {
    const t = setup(
      [
        { def: buyEveryLaunch, id: 'sl', exits: { stopLossBps: 3_000 } },
        { def: buyEveryLaunch, id: 'ts', exits: { timeStopMs: 60_000 } },
        { def: buyEveryLaunch, id: 'safe', exits: { exitOnSafety: { maxBundlerPct: 30 } } },
      ],
      { risk: {} },
    );
    await t.engine.start();
    t.engine.ingest(wire('price:token:A', priceFrame(0.0001), t.clock.now()));
    t.launch('A');
    t.clock.advance(200);
    expect(t.engine.portfolio.open().map((p) => p.strategyId)).toEqual(['sl', 'ts', 'safe']);
    t.price('A', 0.00006);
    t.clock.advance(200);
    expect(t.engine.portfolio.open().map((p) => p.strategyId)).toEqual(['ts', 'safe']);
    t.engine.ingest(wire('bundlers:A', { totalBundlerPercentage: 45 }, t.clock.now()));
    t.clock.advance(200);
    expect(t.engine.portfolio.open().map((p) => p.strategyId)).toEqual(['ts']);
    t.clock.advance(60_000);
    expect(t.engine.portfolio.open()).toHaveLength(0);
    expect(t.engine.stats.summary()).toMatchObject({ trades: 3, wins: 0 });
  });

  it('denies as a value and logs the denial with its code when a limit is hit', async () => {
    const results: unknown[] = [];
    const def = defineStrategy({
      id: 'big',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(e, ctx) {
        results.push(ctx.buy({ mint: e.mint, lamports: 5n * SOL, reason: 'too big' }));
      },
    });
    const t = setup([{ def }], { risk: { maxTradeLamports: lamports(SOL) } });
    await t.engine.start();
    t.launch('A');
    expect(results).toEqual([{ ok: false, code: 'RISK_TRADE_SIZE', reason: expect.stringContaining('maxTradeLamports') }]);
    expect(JSON.parse(t.log.lines[0]!)).toMatchObject({ kind: 'denied', code: 'RISK_TRADE_SIZE', amountIn: '5000000000' });
    expect(t.engine.stats.denialsByCode.get('RISK_TRADE_SIZE')).toBe(1);
  });

  it('runs strategy timers on the engine clock', async () => {
    const fired: number[] = [];
    const def = defineStrategy({
      id: 'timer',
      params: z.strictObject({}),
      onStart(ctx) {
        ctx.schedule(5_000, 'tick', 1);
      },
      onTimer(e, ctx) {
        fired.push(ctx.clock.now());
        void e;
      },
    });
    const t = setup([{ def }]);
    await t.engine.start();
    const start = t.clock.now();
    t.clock.advance(4_999);
    expect(fired).toEqual([]);
    t.clock.advance(1);
    expect(fired).toEqual([start + 5_000]);
  });

  it('writes the same decision log for two runs with one seed and one input', async () => {
    const run = async () => {
      const t = setup([{ def: buyEveryLaunch, exits: { takeProfit: [{ multiple: '1.5', sellBps: 10_000 }], stopLossBps: 2_000 } }]);
      await t.engine.start();
      for (let i = 0; i < 20; i++) {
        const mint = `T${i}`;
        t.price(mint, 0.0001);
        t.launch(mint);
        t.clock.advance(300);
        t.price(mint, i % 2 === 0 ? 0.0002 : 0.00005);
        t.clock.advance(300);
      }
      await t.engine.stop();
      return t.log.lines.join('');
    };
    const a = await run();
    const b = await run();
    expect(a.match(/"kind":"fill"/g)?.length).toBeGreaterThanOrEqual(30);
    expect(a).toBe(b);
  });

  it('tells every strategy about a stream gap with the rooms it affected', async () => {
    const gaps: unknown[] = [];
    const def = defineStrategy({
      id: 'gaps',
      params: z.strictObject({}),
      onGap(e) {
        gaps.push({ from: e.startedAt, to: e.endedAt, rooms: e.rooms });
      },
    });
    const t = setup([{ def }]);
    await t.engine.start();
    t.feed.gap({ startedAt: 10 as never, endedAt: 20 as never, rooms: ['latest'] });
    expect(gaps).toEqual([{ from: 10, to: 20, rooms: ['latest'] }]);
    await t.engine.stop();
    t.feed.gap({ startedAt: 30 as never, endedAt: 40 as never, rooms: [] });
    expect(gaps).toHaveLength(1);
  });

  it('denies buys under the kill switch as values that name the reason', async () => {
    const results: unknown[] = [];
    const def = defineStrategy({
      id: 'k',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(e, ctx) {
        results.push(ctx.buy({ mint: e.mint, lamports: SOL, reason: 'r' }));
      },
    });
    const t = setup([{ def }]);
    await t.engine.start();
    t.engine.kill('operator said so');
    t.launch('A');
    expect(results).toEqual([{ ok: false, code: 'RISK_KILL_SWITCH', reason: 'kill switch is on: operator said so' }]);
  });

  it('retries a time stop whose sell was rejected on the next price tick', async () => {
    const t = setup([{ def: buyEveryLaunch, exits: { timeStopMs: 10_000 } }]);
    await t.engine.start();
    t.price('A', 0.0001);
    t.launch('A');
    t.clock.advance(200);
    expect(t.engine.portfolio.open()).toHaveLength(1);
    t.clock.advance(10_000); // the time stop places its sell at 0.0001
    t.price('A', 0.00005); // the price halves during the fill latency: the sell fails on slippage
    t.clock.advance(200);
    expect(t.engine.portfolio.open()).toHaveLength(1);
    expect(t.log.lines.some((l) => l.includes('PAPER_SLIPPAGE_EXCEEDED'))).toBe(true);
    t.price('A', 0.00005);
    t.clock.advance(200);
    expect(t.engine.portfolio.open()).toHaveLength(0);
  });

  it('hands the executor a buy that spends lamports and a sell of raw tokens, and denies an amount that is not a bigint above zero', async () => {
    const results: { what: string; ok: boolean; code?: string; reason?: string }[] = [];
    const pending: PendingIntent[] = [];
    const note = (what: string, r: { ok: true } | { ok: false; code: string; reason: string }) =>
      void results.push({ what, ok: r.ok, ...(r.ok ? {} : { code: r.code, reason: r.reason }) });
    const def = defineStrategy({
      id: 'trader',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(e, ctx) {
        note('negative buy', ctx.buy({ mint: e.mint, lamports: -1n, reason: 'x' }));
        note('number buy', ctx.buy({ mint: e.mint, lamports: 5 as unknown as bigint, reason: 'x' }));
        note('buy', ctx.buy({ mint: e.mint, lamports: SOL, reason: 'x' }));
        pending.push(...ctx.pending(e.mint));
      },
      onFill(f, ctx) {
        if (f.side !== 'buy') return;
        note('zero sell', ctx.sell({ mint: f.mint, amountRaw: 0n, reason: 'x' }));
        note('sell', ctx.sell({ mint: f.mint, amountRaw: f.tokenAmount / 2n, reason: 'x' }));
        pending.push(...ctx.pending(f.mint));
      },
    });
    const intents: OrderIntent[] = [];
    const t = setup([{ def }], { onIntent: (i) => void intents.push(i) });
    await t.engine.start();
    t.price('A', 0.0001);
    t.launch('A');
    t.clock.advance(200);
    expect(results).toEqual([
      { what: 'negative buy', ok: false, code: 'RISK_INVALID_AMOUNT', reason: 'amount must be > 0' },
      { what: 'number buy', ok: false, code: 'RISK_INVALID_AMOUNT', reason: 'lamports must be a bigint > 0 (such as 100_000_000n), got a number' },
      { what: 'buy', ok: true },
      { what: 'zero sell', ok: false, code: 'RISK_INVALID_AMOUNT', reason: 'amount must be > 0' },
      { what: 'sell', ok: true },
    ]);
    const [buy, sell] = intents;
    expect(intents).toHaveLength(2);
    expect(buy).toMatchObject({ side: 'buy', spendLamports: SOL });
    expect(sell?.side).toBe('sell');
    const half = t.engine.portfolio.position('trader', 'A')!.tokenRaw / 2n;
    expect(sell).toMatchObject({ side: 'sell', sellRaw: half });
    for (const i of intents) expect(Object.keys(i)).not.toContain('amountIn');
    expect(pending.map((p) => (p.side === 'buy' ? ['buy', p.spendLamports] : ['sell', p.sellRaw]))).toEqual([
      ['buy', SOL],
      ['sell', half],
    ]);
    // the decision log keeps its one amountIn field (parity with earlier logs): lamports for buys, raw for sells
    const logged = t.log.lines
      .map((l) => JSON.parse(l) as { kind: string; amountIn?: string })
      .filter((e) => e.kind !== 'fill')
      .map((e) => [e.kind, e.amountIn]);
    expect(logged).toEqual([
      ['denied', '-1'],
      ['denied', '5'],
      ['intent', String(SOL)],
      ['denied', '0'],
      ['intent', String(half)],
    ]);
  });
});
