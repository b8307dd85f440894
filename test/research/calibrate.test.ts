import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isChainpilotError } from '../../src/core/errors.js';
import { calibrate, fitExtraSlippageBps, modelBlockYaml, secondStage, wilson } from '../../src/research/calibrate/calibrate.js';
import { graduationsOf } from '../../src/research/calibrate/graduations.js';
import { pairFills } from '../../src/research/backtest/pair-fills.js';
import { paperExecutorSettings } from '../../src/runtime/paper/paper-executor-settings.js';
import { loadDeployment } from '../../src/config/index.js';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
import type { Lamports, RawAmount, UnixMs } from '../../src/core/index.js';
import { intent as journalIntent } from '../executors/journal-conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-calibrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (o: Record<string, unknown>): string => JSON.stringify(o);
const intent = (id: string, at: number): string =>
  line({ kind: 'intent', at, intentId: id, strategyId: 's', side: 'buy', mint: 'M', amountIn: '100000000', referencePrice: null, reason: 'r' });
const fill = (id: string, at: number, fee: string, rent?: string): string =>
  line({
    kind: 'fill',
    at,
    intentId: id,
    strategyId: 's',
    side: 'buy',
    mint: 'M',
    solAmount: '1',
    tokenAmount: '1',
    feeLamports: fee,
    price: '1',
    ...(rent ? { rentLamports: rent } : {}),
  });
const unfilled = (id: string, at: number, outcome: string, code: string, fee = '0'): string =>
  line({ kind: 'unfilled', at, intentId: id, strategyId: 's', outcome, code, reason: 'x', feeLamports: fee });

/**
 * A real SQLite journal whose rows landed in `slot` with block time `blockTimeMs` (the journal's
 * `landed_slot INTEGER NULL` column, added here if this journal's schema does not have it yet).
 */
async function landedJournal(
  name: string,
  rows: readonly { id: string; createdAt: number; slot: number; blockTimeMs: number; seenAt?: number }[],
  o: { slotColumn?: boolean } = {},
): Promise<string> {
  const path = join(dir, name);
  const j = openSqliteJournal({ path });
  try {
    for (const r of rows) {
      await j.create(journalIntent(r.id, { createdAt: r.createdAt as UnixMs }), { spendLamports: 100n, day: '2026-01-01' }, r.createdAt);
      const signature = `sig-${r.id}`;
      await j.recordSigned(r.id, { signature, txBase64: 'AAEC', blockhash: 'h', expiryBlockHeight: 150, slippageBps: 150 }, r.createdAt);
      await j.markSent(r.id, signature, r.createdAt);
      const fill = {
        intentId: r.id,
        side: 'buy' as const,
        mint: 'm',
        decimals: 6,
        solAmount: 100n as Lamports,
        tokenAmount: 10n as RawAmount,
        feeLamports: 5_000n as Lamports,
        price: '0.1',
        filledAt: r.blockTimeMs as UnixMs,
        signature,
      };
      await j.resolve(r.id, { state: 'LANDED', signature, fill }, r.seenAt ?? r.blockTimeMs);
    }
  } finally {
    await j.close();
  }
  const db = new Database(path);
  try {
    const has = db
      .prepare<[], { name: string }>('PRAGMA table_info(intents)')
      .all()
      .some((c) => c.name === 'landed_slot');
    if (o.slotColumn === false) {
      if (has) db.prepare('UPDATE intents SET landed_slot = NULL').run();
    } else {
      if (!has) db.exec('ALTER TABLE intents ADD COLUMN landed_slot INTEGER NULL');
      const set = db.prepare<[number, string]>('UPDATE intents SET landed_slot = ? WHERE id = ?');
      for (const r of rows) set.run(r.slot, r.id);
    }
  } finally {
    db.close();
  }
  return path;
}

describe('chainpilot calibrate', () => {
  it('fits latency, fee, rent and failure rates from a live decision log, leaving refusals of the rails out', () => {
    const log = [
      intent('int_1a2b3c4d_A', 0),
      fill('int_1a2b3c4d_A', 6_000, '110000', '2039280'),
      intent('int_1a2b3c4d_B', 10_000),
      fill('int_1a2b3c4d_B', 16_250, '110000'),
      intent('int_1a2b3c4d_C', 20_000),
      fill('int_1a2b3c4d_C', 25_500, '105000', '2039280'),
      intent('int_1a2b3c4d_D', 30_000),
      unfilled('int_1a2b3c4d_D', 30_100, 'rejected', 'LIVE_INSPECTION_SIMULATION'),
      intent('int_1a2b3c4d_E', 40_000),
      unfilled('int_1a2b3c4d_E', 46_000, 'failed', 'LIVE_FAILED_ON_CHAIN', '110000'),
      intent('int_1a2b3c4d_F', 50_000),
      unfilled('int_1a2b3c4d_F', 50_000, 'rejected', 'LIVE_SPEND_CAP_DAY'),
      intent('int_1a2b3c4d_G', 60_000),
      line({
        kind: 'unfilled',
        at: 60_100,
        intentId: 'int_1a2b3c4d_G',
        strategyId: 's',
        outcome: 'rejected',
        code: 'LIVE_INSPECTION_SIMULATION',
        reason: 'simulation returned error {"InstructionError":[4,{"Custom":6001}]}',
        feeLamports: '0',
      }),
    ].join('\n');
    const file = join(dir, 'live.decisions.jsonl');
    writeFileSync(file, `${log}\n`);
    const f = calibrate([file]);
    expect(f).toMatchObject({ intents: 6, fills: 3, latencyMs: [5_500, 6_000, 6_250], feeLamports: 110_000n, rentLamports: 2_039_280n, rentBuys: 2 });
    expect(f.latencyQuantilesMs).toEqual({ p10: 5_500, p50: 6_000, p90: 6_250 });
    // The slippage refusal is the fill model's to decide: reported, not drawn.
    expect(f.simulation).toMatchObject({ events: 1, trials: 6 });
    expect(f.slippage).toMatchObject({ events: 1, trials: 6 });
    expect(f.onChain).toMatchObject({ events: 1, trials: 4, rate: 0.25 });
    // The block loads as a deployment's paper.model.
    const yaml = modelBlockYaml(f);
    expect(yaml).toContain('95 % interval');
    const deployment = join(dir, 'd.yaml');
    writeFileSync(deployment, `version: 1\nname: d\nstrategies:\n  - use: graduation-sniper\n${yaml}`);
    expect(loadDeployment(deployment).deployment.paper.model).toEqual({
      latencyMs: [5_500, 6_000, 6_250],
      feeLamports: 110_000,
      rentLamports: 2_039_280,
      ownImpact: true,
      simulationFailureRate: 0.166667,
      onChainFailureRate: 0.25,
    });
  });

  it("counts a journal's DENIED rows (inspection refusals) as the decision log counts them, leaving the rails' denials out", async () => {
    const path = join(dir, 'journal.sqlite');
    const j = openSqliteJournal({ path });
    const spend = { spendLamports: 100n, day: '2026-01-01' };
    const create = (id: string) => j.create(journalIntent(id, { createdAt: 1_000 as UnixMs }), spend, 1_000);
    try {
      await create('int_A');
      await j.markBuilt('int_A', 1_100);
      await j.recordSigned('int_A', { signature: 'sig-A', txBase64: 'AAEC', blockhash: 'h', expiryBlockHeight: 150, slippageBps: 150 }, 1_200);
      await j.markSent('int_A', 'sig-A', 1_300);
      const fill = {
        intentId: 'int_A',
        side: 'buy' as const,
        mint: 'm',
        decimals: 6,
        solAmount: 100n as Lamports,
        tokenAmount: 10n as RawAmount,
        feeLamports: 105_000n as Lamports,
        price: '0.1',
        filledAt: 1_400 as UnixMs,
        signature: 'sig-A',
      };
      await j.resolve('int_A', { state: 'LANDED', signature: 'sig-A', fill }, 1_400);
      // Inspection refused B at simulation and C on its output (slippage); the day's cap refused D (a rail).
      for (const [id, code, reason] of [
        ['int_B', 'LIVE_INSPECTION_SIMULATION', 'simulation returned error {"InstructionError":[2,"InvalidAccountData"]}'],
        ['int_C', 'LIVE_INSPECTION_OUTPUT', 'the output would not reach the least accepted amount'],
        ['int_D', 'LIVE_SPEND_CAP_DAY', 'over the day cap'],
      ] as const) {
        await create(id);
        await j.deny(id, code, reason, 1_500);
      }
    } finally {
      await j.close();
    }
    const f = calibrate([path]);
    expect(f).toMatchObject({ intents: 3, fills: 1, latencyMs: [400], feeLamports: 105_000n });
    expect(f.simulation).toMatchObject({ events: 1, trials: 3 });
    expect(f.slippage).toMatchObject({ events: 1, trials: 3 });
  });

  it('fits latency at slot resolution from landing slots: the start of the landing slot at the earliest instant the landings allow, not the block time floored to the second; and the slots from each decision to its landing', async () => {
    // A chain whose slot s starts at 400 s ms (on a whole second every 5 slots, as the simulator's ledger):
    // slots 1..5 start at 400, 800, 1200, 1600 and 2000, so their block times are 0, 0, 1000, 1000 and 2000.
    // The anchor intervals [bt - 400 s, bt - 400 s + 1000) intersect in [0, 200): anchor 0 (the earliest), exact here.
    const landings = [
      // seenAt: when the executor saw the landing (the row's last update), a slot after it here
      { id: 'int_S1', createdAt: 0, slot: 1, blockTimeMs: 0, seenAt: 800 },
      { id: 'int_S2', createdAt: 100, slot: 2, blockTimeMs: 0, seenAt: 1_200 },
      { id: 'int_S3', createdAt: 1_000, slot: 3, blockTimeMs: 1_000, seenAt: 1_600 },
      { id: 'int_S4', createdAt: 1_000, slot: 4, blockTimeMs: 1_000, seenAt: 2_000 },
      { id: 'int_S5', createdAt: 1_200, slot: 5, blockTimeMs: 2_000, seenAt: 2_400 },
    ];
    const path = await landedJournal('slots.sqlite', landings);
    const f = calibrate([path]);
    // 400 - 0, 800 - 100, 1200 - 1000, 1600 - 1000, 2000 - 1200; from block times: 0, 0, 0, 0, 800
    expect(f.latencyMs).toEqual([200, 400, 600, 700, 800]);
    expect(f.latencyFrom).toEqual({ slot: 5, 'block-time': 0, 'decision-log': 0 });
    expect(f.slotUncertaintyMs).toBe(200);
    // decisions in slots 0, 0, 2, 2 and 3 (the one running at createdAt): 1, 2, 1, 2 and 2 slots to the landing's,
    // seen 800, 1100, 600, 1000 and 1200 ms after the decision: kept in pairs, in order
    expect(f.landing).toEqual({ slotMs: 400, phaseMs: 0, slots: [1, 1, 2, 2, 2], reportMs: [600, 800, 1_000, 1_100, 1_200] });
    const yaml = modelBlockYaml(f);
    expect(yaml).toContain('# latency, decision to landing: 5 from landing slots (slot start, the earliest the block times allow, at most 200 ms early)');
    expect(yaml).toContain('    landing:\n      slotMs: 400\n      phaseMs: 0');
    expect(yaml).toContain('      slots: [1, 1, 2, 2, 2]');
    expect(yaml).toContain('      reportMs: [600, 800, 1000, 1100, 1200]');

    // The same rows without the landing slot (a journal written before landed_slot): block times, as before.
    const old = await landedJournal('no-slots.sqlite', landings, { slotColumn: false });
    const g = calibrate([old]);
    expect(g.latencyMs).toEqual([0, 0, 0, 0, 800]);
    expect(g.landing).toBeUndefined();
    expect(g.latencyFrom).toEqual({ slot: 0, 'block-time': 5, 'decision-log': 0 });
    expect(g.latencyResolution).toContain('5 from block times');
  });

  it('keeps block times when the landings are not one slot every slotMs (a real cluster, a wall-paced simulator), and fits each journal on its own slot clock', async () => {
    const even = [
      { id: 'int_E1', createdAt: 0, slot: 1, blockTimeMs: 0 },
      { id: 'int_E2', createdAt: 1_000, slot: 4, blockTimeMs: 1_000 },
    ];
    // slot 6 would start at 2,400 to 2,600 on that clock, but its block time says 5 s
    const skewed = await landedJournal('skewed.sqlite', [...even, { id: 'int_E3', createdAt: 4_000, slot: 6, blockTimeMs: 5_000 }]);
    const f = calibrate([skewed]);
    expect(f.latencyFrom).toEqual({ slot: 0, 'block-time': 3, 'decision-log': 0 });
    expect(f.latencyMs).toEqual([0, 0, 1_000]);

    // Two rehearsals each start their ledger at slot 1 at another time: one clock across them would not fit.
    const a = await landedJournal('chain-a.sqlite', even);
    const b = await landedJournal(
      'chain-b.sqlite',
      even.map((l) => ({ ...l, id: `${l.id}b`, createdAt: l.createdAt + 50_000, blockTimeMs: l.blockTimeMs + 50_000 })),
    );
    const both = calibrate([a, b]);
    expect(both.latencyFrom).toEqual({ slot: 4, 'block-time': 0, 'decision-log': 0 });
    // both grids start slots at 0 modulo 400: one landing block; a chain on another phase gives none (which grid would a backtest use?)
    expect(both.landing?.phaseMs).toBe(0);
    const c = await landedJournal(
      'chain-c.sqlite',
      even.map((l) => ({ ...l, id: `${l.id}c`, createdAt: l.createdAt + 50_100, blockTimeMs: l.blockTimeMs + 50_000 })),
    );
    expect(calibrate([c]).landing?.phaseMs).toBe(0);
    const shifted = await landedJournal('chain-d.sqlite', [
      { id: 'int_D1', createdAt: 0, slot: 1, blockTimeMs: 0 },
      { id: 'int_D2', createdAt: 1_000, slot: 4, blockTimeMs: 1_000 },
      { id: 'int_D3', createdAt: 1_000, slot: 3, blockTimeMs: 1_000 },
    ]);
    expect(calibrate([shifted]).landing?.phaseMs).toBe(200);
    expect(calibrate([a, shifted]).landing).toBeUndefined();
  });

  it('uses the slot time given (--slot-ms): the same landings at 500 ms slots', async () => {
    // slot s starts at 500 s: slots 1..3 start at 500, 1000 and 1500 (block times 0, 1000 and 1000)
    const path = await landedJournal('slot-500.sqlite', [
      { id: 'int_F1', createdAt: 0, slot: 1, blockTimeMs: 0 },
      { id: 'int_F2', createdAt: 0, slot: 2, blockTimeMs: 1_000 },
      { id: 'int_F3', createdAt: 0, slot: 3, blockTimeMs: 1_000 },
    ]);
    const f = calibrate([path], 500);
    // anchor intervals: [-500, 500), [0, 1000), [-500, 500) -> [0, 500): anchor 0, up to 500 ms early
    expect(f.latencyMs).toEqual([500, 1_000, 1_500]);
    expect(f.slotUncertaintyMs).toBe(500);
    expect(f.landing).toEqual({ slotMs: 500, phaseMs: 0, slots: [1, 2, 3], reportMs: [0, 1_000, 1_000] });
  });

  it('gives the 95 % Wilson interval of a rate (hand-computed: 1 of 5 is 3.62 % to 62.45 %)', () => {
    const w = wilson(1, 5);
    expect(w.low).toBeCloseTo(0.036224, 5);
    expect(w.high).toBeCloseTo(0.624465, 5);
  });

  it('refuses input with no live fill with BACKTEST_NO_LIVE_DATA', () => {
    const file = join(dir, 'empty.jsonl');
    writeFileSync(file, `${intent('int_A', 0)}\n`);
    let err: unknown;
    try {
      calibrate([file]);
    } catch (e) {
      err = e;
    }
    expect(isChainpilotError(err) && err.code === 'BACKTEST_NO_LIVE_DATA').toBe(true);
  });
});

describe('fitExtraSlippageBps', () => {
  it('adds the median adverse drift of paired fills (buys as measured, sells negated) to the slippage the backtest used', () => {
    const pairs = [
      { side: 'buy' as const, priceDriftBps: 300 },
      { side: 'buy' as const, priceDriftBps: 500 },
      { side: 'sell' as const, priceDriftBps: -400 },
      { side: 'sell' as const, priceDriftBps: 100 },
      { side: 'buy' as const, priceDriftBps: null },
    ];
    // Adverse: 300, 500, 400, −100 → median (300 + 400) / 2 = 350; 50 + 350.
    expect(fitExtraSlippageBps(pairs, 50)).toBe(400);
    // Live paid less than the model charged: a negative correction, never below minus the pool fee
    // paper charges (100 bps by default, 25 given): beyond it a paper fill would beat the pool.
    expect(fitExtraSlippageBps([{ side: 'buy', priceDriftBps: -120 }], 50)).toBe(-70);
    expect(fitExtraSlippageBps([{ side: 'buy', priceDriftBps: -900 }], 50)).toBe(-100);
    expect(fitExtraSlippageBps([{ side: 'sell', priceDriftBps: 9_000 }], 50, 25)).toBe(-25);
    expect(fitExtraSlippageBps([], 50)).toBeUndefined();
  });

  it('fits the median of the whole distribution: one-sided slippage refusals rank at its ends', () => {
    const fills = [-80, -60, -40, -20, 0].map((d) => ({ side: 'buy' as const, priceDriftBps: d }));
    // Fills only: median −40; 50 − 40 = 10.
    expect(fitExtraSlippageBps(fills, 50)).toBe(10);
    // Two intents live refused on slippage and the backtest filled rank above every fill: the
    // median of 7 is the 4th, −20; 50 − 20 = 30. Dropping them (as before) under-charges paper.
    const refused = { side: 'buy' as const, priceDriftBps: null, censored: 'adverse' as const };
    expect(fitExtraSlippageBps([...fills, refused, refused], 50)).toBe(30);
    // One the backtest refused and live filled ranks below: with one of each, the median is −40 again.
    const paperRefused = { side: 'sell' as const, priceDriftBps: null, censored: 'favourable' as const };
    expect(fitExtraSlippageBps([...fills, refused, paperRefused], 50)).toBe(10);
    // Half refused: the middle two are the largest fill (0) and a refusal; the median is the finite one: 50 + 0.
    expect(fitExtraSlippageBps([...fills, refused, refused, refused, refused, refused], 50)).toBe(50);
    // Refusals alone measure nothing.
    expect(fitExtraSlippageBps([refused], 50)).toBeUndefined();
  });
});

describe('secondStage (calibrate --against)', () => {
  it('reads one-sided slippage refusals from the pairs backtest --verify-against writes (a 6001 simulation error included)', () => {
    const d3 = mkdtempSync(join(tmpdir(), 'chainpilot-stage2-'));
    try {
      const bt = (id: string, at: number, price: string) => [
        intent(id, at),
        line({
          kind: 'fill',
          at: at + 400,
          intentId: id,
          strategyId: 's',
          side: 'buy',
          mint: 'M',
          solAmount: price,
          tokenAmount: '1000',
          feeLamports: '0',
          price: '1',
        }),
      ];
      const liveLog = [
        ...bt('int_1a2b3c4d_1', 0, '1010'), // 100 bps above the backtest's 1000
        ...bt('int_1a2b3c4d_2', 10, '1000'), // 0
        ...bt('int_1a2b3c4d_3', 20, '990'), // −100
        intent('int_1a2b3c4d_4', 30),
        line({
          kind: 'unfilled',
          at: 500,
          intentId: 'int_1a2b3c4d_4',
          strategyId: 's',
          outcome: 'rejected',
          code: 'LIVE_INSPECTION_SIMULATION',
          reason: 'simulation returned error {"InstructionError":[4,{"Custom":6001}]}',
          feeLamports: '0',
        }),
      ].join('\n');
      const btLog = [...bt('int_1', 0, '1000'), ...bt('int_2', 10, '1000'), ...bt('int_3', 20, '1000'), ...bt('int_4', 30, '1000')].join('\n');
      const lvb = pairFills(`${liveLog}\n`, `${btLog}\n`);
      expect(lvb.pairs.find((x) => x.live?.intentId === 'int_1a2b3c4d_4')?.live).toMatchObject({ outcome: 'rejected', slippage: true });
      writeFileSync(join(d3, 'r.json'), JSON.stringify({ liveVsBacktest: lvb }));
      // Adverse: −100, 0, 100 and the refusal (+∞): median (0 + 100) / 2 = 50; fills only it would be 0.
      expect(secondStage([join(d3, 'r.json')], 50)).toEqual({ extraSlippageBps: 100, usedBps: 50, pairs: 3, refusals: 1, reports: 1, floorBps: -100 });
    } finally {
      rmSync(d3, { recursive: true, force: true });
    }
  });

  it("fits extraSlippageBps from backtests' report.json pairs, writes it into the model block, and a deployment reading that block uses it", () => {
    const d2 = mkdtempSync(join(tmpdir(), 'chainpilot-stage2-'));
    try {
      const report = (drifts: [string, number | null][]) => ({
        liveVsBacktest: { summary: {}, pairs: drifts.map(([side, priceDriftBps]) => ({ side, priceDriftBps })) },
      });
      writeFileSync(
        join(d2, 'a.json'),
        JSON.stringify(
          report([
            ['buy', -150],
            ['sell', 120],
            ['buy', null],
          ]),
        ),
      );
      writeFileSync(
        join(d2, 'b.json'),
        JSON.stringify(
          report([
            ['buy', -90],
            ['sell', 60],
          ]),
        ),
      );
      // Adverse: −150, −120, −90, −60 → median −105; 50 − 105 = −55 (rounded half away: −55).
      const s2 = secondStage([join(d2, 'a.json'), join(d2, 'b.json')], 50);
      expect(s2).toEqual({ extraSlippageBps: -55, usedBps: 50, pairs: 4, refusals: 0, reports: 2, floorBps: -100 });
      writeFileSync(join(d2, 'live.jsonl'), `${intent('int_A', 0)}\n${fill('int_A', 1_500, '110000')}\n`);
      const fit = calibrate([join(d2, 'live.jsonl')]);
      const block = modelBlockYaml(fit, s2);
      expect(block).toContain(
        '    extraSlippageBps: -55   # second stage: 50 plus the median adverse drift of 4 paired fills and 0 one-sided slippage refusals in 2 report(s), at least -100 (the pool fee)',
      );
      writeFileSync(join(d2, 'model.yaml'), block);
      writeFileSync(join(d2, 'd.yaml'), 'version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\npaper:\n  modelFile: model.yaml\n');
      const dep = loadDeployment(join(d2, 'd.yaml'), { env: {} }).deployment;
      expect(dep.paper.model?.extraSlippageBps).toBe(-55);
      expect(paperExecutorSettings(dep, 1).fillModel?.extraSlippageBps).toBe(-55);

      writeFileSync(join(d2, 'plain.json'), JSON.stringify({ metrics: {} }));
      expect(() => secondStage([join(d2, 'plain.json')], 50)).toThrow(
        /no live-vs-backtest pairs; give the report.json of a backtest run with --verify-against/,
      );
      expect(() => secondStage([join(d2, 'missing.json')], 50)).toThrow(/cannot read .*missing.json as a backtest's report.json \(ENOENT\)/);
    } finally {
      rmSync(d2, { recursive: true, force: true });
    }
  });

  it("with the recordings (--data), fits the fills in graduated pools apart from the bonding curve's, and a deployment reading the block uses each where it belongs", () => {
    const d = mkdtempSync(join(tmpdir(), 'chainpilot-stage2-grad-'));
    try {
      // token G graduated at 1,000 (its `graduated` frame in the recording, gzipped as recorded); C never did
      const frame = (t: number, room: string, mint: string): string => JSON.stringify({ t, f: { type: 'message', room, data: { token: { mint } } } });
      mkdirSync(join(d, 'rec'));
      writeFileSync(
        join(d, 'rec', 'r-20260101T000000Z.0000.jsonl.gz'),
        gzipSync(`${JSON.stringify({ k: 'header' })}\n${frame(500, 'latest', 'G')}\n${frame(1_000, 'graduated', 'G')}\n${frame(2_000, 'graduated', 'G')}\n`),
      );
      const graduations = graduationsOf([join(d, 'rec')]);
      expect([...graduations]).toEqual([['G', 1_000]]);
      const pair = (mint: string, decidedAt: number, priceDriftBps: number) => ({ side: 'buy', mint, priceDriftBps, live: { outcome: 'filled', decidedAt } });
      // on the curve (C, and G before it graduated): adverse 0, 10, 20 → 10; in the graduated pool: −80, −70 → −75
      writeFileSync(
        join(d, 'r.json'),
        JSON.stringify({
          liveVsBacktest: { pairs: [pair('C', 0, 0), pair('C', 5_000, 10), pair('G', 900, 20), pair('G', 1_000, -80), pair('G', 3_000, -70)] },
        }),
      );
      const s2 = secondStage([join(d, 'r.json')], 50, 100, graduations);
      expect(s2).toMatchObject({ extraSlippageBps: 60, pairs: 5, graduated: { extraSlippageBps: -25, pairs: 2 } });
      // without the recordings: one fit over all five (−80, −70, 0, 10, 20 → 0)
      expect(secondStage([join(d, 'r.json')], 50)).toEqual({ extraSlippageBps: 50, usedBps: 50, pairs: 5, refusals: 0, reports: 1, floorBps: -100 });
      writeFileSync(join(d, 'live.jsonl'), `${intent('int_A', 0)}\n${fill('int_A', 1_500, '110000')}\n`);
      const block = modelBlockYaml(calibrate([join(d, 'live.jsonl')]), s2);
      expect(block).toContain('    graduatedExtraSlippageBps: -25   # the same of the 2 paired fills (and refusals) in graduated pools');
      writeFileSync(join(d, 'model.yaml'), block);
      writeFileSync(join(d, 'd.yaml'), 'version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\npaper:\n  modelFile: model.yaml\n');
      const fm = paperExecutorSettings(loadDeployment(join(d, 'd.yaml'), { env: {} }).deployment, 1).fillModel;
      expect(fm).toMatchObject({ extraSlippageBps: 60, graduatedExtraSlippageBps: -25, curveReserves: true });
      writeFileSync(
        join(d, 'low.yaml'),
        'version: 1\nname: t\nstrategies:\n  - use: graduation-sniper\npaper:\n  model:\n    latencyMs: [400]\n    feeLamports: 5000\n    graduatedExtraSlippageBps: -150\n',
      );
      expect(() => loadDeployment(join(d, 'low.yaml'), { env: {} })).toThrow(/paper\.model\.graduatedExtraSlippageBps/);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
