/**
 * Issue 38, cases 4 and 5: the journal cannot write for a while (a full disk). The ledger, the
 * executor and the signed transactions are real (the simulator's ledger behind JSON-RPC and the
 * swap service, a real SQLite journal); only the journal's storage is a narrow fake that fails one
 * call site with SQLite's "disk full" until the test frees it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAMPORTS_PER_SOL, PublicKey, type Keypair } from '@solana/web3.js';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { getAssociatedTokenAddressSync } from '../../src/client/spl-token.js';
import { createRpcClient, createSwapClient, type RpcClient, type SwapClient } from '../../src/client/index.js';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport, Fill, OrderIntent } from '../../src/engine/orders/execution-port.js';
import type { IntentJournal } from '../../src/executors/journal/journal.js';
import { openSqliteJournal } from '../../src/executors/journal/sqlite-journal.js';
import type { JournalOp } from '../../src/executors/live/journal-outage.js';
import { createLiveExecutor, type JournalHealth, type LiveExecutor } from '../../src/executors/live/live-executor.js';
import { keypairSigner } from '../../src/executors/signer/signer.js';
import { utcDay } from '../../src/executors/admission.js';
import { orderIntent, type IntentDraft } from '../helpers/intents.js';
import { z } from 'zod';
import { seededRandom } from '../../src/core/index.js';
import { createEngine } from '../../src/engine/engine.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { fakeFeed } from '../engine/fake-feed.js';
import { priceFrame } from '../engine/wire.js';
import { API_KEY, startHarness as startLedger, type Harness as Ledger } from '../sim-ledger/harness.js';

const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/** The journal's storage, failing `down` with SQLite's disk-full error until it is set back to undefined. */
interface Disk {
  down: JournalOp | undefined;
  readonly fails: Partial<Record<JournalOp, number>>;
}

function fullDisk(journal: IntentJournal, disk: Disk): IntentJournal {
  const at =
    <A extends unknown[], R>(op: JournalOp, call: (...a: A) => Promise<R>) =>
    (...a: A): Promise<R> => {
      if (disk.down !== op) return call(...a);
      disk.fails[op] = (disk.fails[op] ?? 0) + 1;
      return Promise.reject(Object.assign(new Error('database or disk is full'), { name: 'SqliteError', code: 'SQLITE_FULL' }));
    };
  return {
    create: at('create', (i: Parameters<IntentJournal['create']>[0], s: Parameters<IntentJournal['create']>[1], t: number) => journal.create(i, s, t)),
    get: at('get', (id: string) => journal.get(id)),
    markBuilt: at('markBuilt', (id: string, t: number) => journal.markBuilt(id, t)),
    recordSigned: at('recordSigned', (id: string, a: Parameters<IntentJournal['recordSigned']>[1], t: number) => journal.recordSigned(id, a, t)),
    markSent: at('markSent', (id: string, sig: string, t: number) => journal.markSent(id, sig, t)),
    resolve: at('resolve', (id: string, r: Parameters<IntentJournal['resolve']>[1], t: number) => journal.resolve(id, r, t)),
    deny: at('deny', (id: string, code: string, reason: string, t: number) => journal.deny(id, code, reason, t)),
    markReported: at('markReported', (id: string, t: number) => journal.markReported(id, t)),
    unresolved: () => journal.unresolved(),
    landed: () => journal.landed(),
    spentOn: (day) => journal.spentOn(day),
    close: () => journal.close(),
  };
}

interface World {
  sim: Ledger;
  mint: string;
  wallet: Keypair;
  journal: IntentJournal;
  disk: Disk;
  executor: LiveExecutor;
  reports: ExecutionReport[];
  health: JournalHealth[];
  lines: { level: number; msg: string; intentId?: string; repeated?: number }[];
  rpc: RpcClient;
  swap: SwapClient;
  dir: string;
  /** sendTransaction calls the executor made (re-broadcasts included). */
  sends: { count: number };
}
let w: World | undefined;
afterEach(async () => {
  if (!w) return;
  await w.executor.stop(AbortSignal.abort());
  await w.journal.close();
  await w.rpc.close();
  await w.swap.close();
  await w.sim.stop();
  rmSync(w.dir, { recursive: true, force: true });
  w = undefined;
});

/** `downAtSend`: intents whose first send turns the disk's `op` down (the outage starts after the send). */
async function world(downAtSend?: { op: JournalOp; ids: Set<string> }, start = true): Promise<World> {
  const sim = await startLedger({ validBlocks: 30 });
  const mint = sim.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
  const wallet = await sim.wallet(10);
  const dir = mkdtempSync(join(tmpdir(), 'chainpilot-journal-outage-'));
  const journal = openSqliteJournal({ path: join(dir, 'journal.sqlite') });
  const disk: Disk = { down: undefined, fails: {} };
  const rpc = createRpcClient({ url: sim.service.urls['rpc'] ?? '', apiKey: API_KEY, timeoutMs: 1_000 });
  const swap = createSwapClient({ url: sim.service.urls['swap'] ?? '', timeoutMs: 5_000 });
  const health: JournalHealth[] = [];
  const lines: World['lines'] = [];
  const logger = pino({ level: 'info', base: undefined }, { write: (l: string) => void lines.push(JSON.parse(l) as World['lines'][number]) });
  const sends = { count: 0 };
  const counted = new Proxy(rpc, {
    get: (target, prop, receiver): unknown =>
      prop === 'sendTransaction'
        ? (...a: Parameters<RpcClient['sendTransaction']>) => (sends.count++, target.sendTransaction(...a))
        : Reflect.get(target, prop, receiver),
  });
  const executor = createLiveExecutor({
    rpc: counted,
    swap,
    signer: keypairSigner(wallet),
    journal: fullDisk(journal, disk),
    clock: sim.clock,
    logger,
    settings: {
      maxTradeLamports: 2n * BigInt(LAMPORTS_PER_SOL),
      maxDayLamports: 5n * BigInt(LAMPORTS_PER_SOL),
      allowedPrograms: [MEMO_PROGRAM],
      blockhashValidityBlocks: 30,
      expiryMarginBlocks: 2,
    },
    probe: (point, id) => {
      if (point === 'sent' && downAtSend?.ids.has(id)) {
        downAtSend.ids.delete(id);
        disk.down = downAtSend.op;
      }
    },
    onJournalHealth: (h) => void health.push(h),
  });
  const reports: ExecutionReport[] = [];
  const wd: World = { sim, mint, wallet, journal, disk, executor, reports, health, lines, rpc, swap, dir, sends };
  if (!start) return wd;
  const started = executor.start((r) => reports.push(r));
  await runUntil(wd, () => true);
  await started;
  return wd;
}

async function runUntil(wd: World, cond: () => boolean | Promise<boolean>, maxSteps = 5_000): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    await new Promise<void>((r) => setTimeout(r, 2));
    if (await cond()) return;
    const next = wd.sim.clock.nextTimerAt();
    if (next !== undefined) wd.sim.clock.advanceTo(next);
  }
  throw new Error(`runUntil: condition not reached; reports: ${JSON.stringify(wd.reports, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`);
}

const intent = (wd: World, n: number, over: Partial<IntentDraft> = {}): OrderIntent =>
  orderIntent({
    id: `out-${n}`,
    strategyId: 'outage',
    side: 'buy',
    mint: wd.mint,
    decimals: 6,
    spendLamports: 500_000_000n,
    slippageBps: 100 as Bps,
    priorityFeeLamports: 100_000n as Lamports,
    referencePrice: undefined,
    createdAt: wd.sim.clock.now() as UnixMs,
    reason: 'outage',
    ...over,
  });

const fillsOf = (wd: World, id: string): Fill[] => wd.reports.flatMap((r) => (r.intentId === id && r.type === 'filled' ? [r.fill] : []));
const tokens = async (wd: World): Promise<bigint> => {
  const ata = getAssociatedTokenAddressSync(new PublicKey(wd.mint), wd.wallet.publicKey);
  const r = await wd.sim.connection.getTokenAccountBalance(ata).catch(() => undefined);
  return r ? BigInt(r.value.amount) : 0n;
};
const lamports = async (wd: World): Promise<bigint> => BigInt(await wd.sim.connection.getBalance(wd.wallet.publicKey));

/** Call sites after the send: the intent must be tracked, and its outcome handed over, while they fail. */
const AFTER_SEND: readonly JournalOp[] = ['markSent', 'resolve', 'markReported', 'get'];
/**
 * The call site before the send (the one write between the decision and the send): nothing leaves
 * until the journal holds it; the intent waits and goes on.
 */
const BEFORE_SEND: readonly JournalOp[] = ['recordSigned'];

describe('a journal that cannot write (issue 38 case 4): nothing sent is ever untracked', () => {
  it.each([...AFTER_SEND, ...BEFORE_SEND])(
    'with %s failing, a buy and a sell land during the outage; positions, fills and wallet equal the journal at the end, without a restart',
    async (op) => {
      const afterSend = AFTER_SEND.includes(op);
      const armed = new Set<string>();
      w = await world({ op, ids: armed });
      const wd = w;
      const sol0 = await lamports(wd);
      let buyRaw = 0n;
      for (const [n, side] of [
        [1, 'buy'],
        [2, 'sell'],
      ] as const) {
        const leg = intent(wd, n, side === 'buy' ? {} : { side: 'sell', sellRaw: buyRaw });
        if (afterSend) armed.add(leg.id);
        else wd.disk.down = op;
        const failsBefore = wd.disk.fails[op] ?? 0;
        await wd.executor.submit(leg);
        // during the outage: the call site failed, and an intent already sent reached its outcome
        await runUntil(wd, () => (wd.disk.fails[op] ?? 0) > failsBefore && (!afterSend || fillsOf(wd, leg.id).length === 1));
        if (wd.disk.down === op && op !== 'markSent' && op !== 'get') {
          // still failing: the deployment is degraded, naming the journal call that failed
          expect(wd.executor.journalHealth()).toMatchObject({
            degraded: true,
            reason: expect.stringContaining(`journal ${op} of intent ${leg.id}`) as unknown,
          });
        }
        if (op === 'resolve') {
          // handed over from memory (exits armed, tokens released) while the journal still lacks the outcome
          expect((await wd.journal.get(leg.id))?.state).not.toBe('LANDED');
        }
        if (side === 'buy' && afterSend) buyRaw = fillsOf(wd, leg.id)[0]!.tokenAmount;
        wd.disk.down = undefined; // the disk is freed
        await runUntil(wd, async () => !wd.executor.journalHealth().degraded && (await wd.journal.get(leg.id))?.reported === true);
        if (side === 'buy') buyRaw = fillsOf(wd, leg.id)[0]!.tokenAmount;
      }
      // the journal holds what the sink was told, each outcome exactly once
      const buy = fillsOf(wd, 'out-1');
      const sell = fillsOf(wd, 'out-2');
      expect(buy).toHaveLength(1);
      expect(sell).toHaveLength(1);
      expect(wd.reports.filter((r) => r.type !== 'accepted' && r.type !== 'filled')).toEqual([]);
      expect((await wd.journal.landed()).map((r) => r.fill)).toEqual([buy[0], sell[0]]);
      expect(await wd.journal.unresolved()).toEqual([]);
      // the wallet moved exactly what the journal says: one transaction per intent
      expect(wd.sim.market.landed).toHaveLength(2);
      expect(await tokens(wd)).toBe(buy[0]!.tokenAmount - sell[0]!.tokenAmount);
      expect(sol0 - (await lamports(wd))).toBe(buy[0]!.solAmount + buy[0]!.feeLamports - sell[0]!.solAmount + sell[0]!.feeLamports);
      // every outage opened and closed once, and the failures were counted
      expect(wd.health.length).toBeGreaterThanOrEqual(2);
      expect(wd.health.map((h) => h.degraded)).toEqual(wd.health.map((_h, i) => i % 2 === 0));
      expect(wd.executor.counters()['journal-error']).toBe(Object.values(wd.disk.fails).reduce((a, b) => a + b, 0));
      expect(wd.lines.some((l) => l.level === 50 && l.msg.startsWith('journal call failed'))).toBe(true);
    },
  );
});

describe('an outage between the decision and its signed attempt (issue 42): nothing is sent, the intent ends clearly, nothing leaks', () => {
  it('with recordSigned failing after the create, no signed build leaves the process; the decision ends DENIED (stale) once, its day spend released, the outage closed', async () => {
    w = await world();
    const wd = w;
    wd.disk.down = 'recordSigned'; // the decision's create writes; the signed attempt does not
    const leg = intent(wd, 80);
    const day = utcDay(leg.createdAt);
    await wd.executor.submit(leg);
    const rec0 = await wd.journal.get(leg.id);
    expect(rec0?.state).toBe('NEW');
    expect(await wd.journal.spentOn(day)).toBe(rec0?.spendLamports);
    // built, inspected and signed again and again; each signed attempt refused by the journal, none sent
    await runUntil(wd, () => (wd.disk.fails.recordSigned ?? 0) >= 3);
    expect(wd.sends.count).toBe(0);
    expect(await wd.journal.get(leg.id)).toMatchObject({ state: 'NEW', attempts: [] });
    expect(wd.executor.journalHealth()).toMatchObject({
      degraded: true,
      waiting: 1,
      reason: expect.stringContaining(`journal recordSigned of intent ${leg.id}`) as unknown,
    });
    // still failing when the decision passes maxIntentAgeMs (60 s): it is refused as stale, not built again
    wd.sim.clock.advance(61_000);
    await runUntil(wd, async () => (await wd.journal.get(leg.id))?.reported === true);
    await wd.executor.idle(); // nothing left in flight
    expect(await wd.journal.get(leg.id)).toMatchObject({ state: 'DENIED', code: 'LIVE_INTENT_STALE', done: true, attempts: [] });
    expect(wd.reports.filter((r) => r.intentId === leg.id).map((r) => (r.type === 'rejected' ? r.code : r.type))).toEqual(['accepted', 'LIVE_INTENT_STALE']);
    expect(wd.sends.count).toBe(0);
    expect(wd.sim.market.landed).toHaveLength(0);
    expect(await wd.journal.spentOn(day)).toBe(0n); // a denied decision holds no day spend
    expect(await wd.journal.unresolved()).toEqual([]);
    // the denial was a write the journal accepted: the outage closed, announced once each way
    expect(wd.executor.journalHealth()).toMatchObject({ degraded: false, waiting: 0 });
    expect(wd.health.map((h) => h.degraded)).toEqual([true, false]);
    // the disk freed, the next decision lands with one transaction
    wd.disk.down = undefined;
    await wd.executor.submit(intent(wd, 81));
    await runUntil(wd, () => fillsOf(wd, 'out-81').length === 1);
    expect(wd.sim.market.landed).toHaveLength(1);
    expect(wd.sends.count).toBeGreaterThanOrEqual(1); // the counter counts the sends it saw none of before
  });
});

describe('refusals while the journal cannot write (issue 38 case 5)', () => {
  const refusedLines = (wd: World): World['lines'] => wd.lines.filter((l) => l.msg === 'intent refused: the journal cannot write');

  it('are reported, logged at error once a minute with the count held back, counted, and each outage is announced once', async () => {
    w = await world();
    const wd = w;
    wd.disk.down = 'create';
    for (let i = 0; i < 18; i++) await wd.executor.submit(intent(wd, 10 + i));
    const refused = wd.reports.filter((r) => r.type === 'rejected' && r.code === 'LIVE_JOURNAL_UNAVAILABLE');
    expect(refused.map((r) => r.intentId)).toEqual(Array.from({ length: 18 }, (_v, i) => `out-${10 + i}`));
    expect(refusedLines(wd)).toHaveLength(1);
    expect(refusedLines(wd)[0]?.level).toBe(50); // error
    wd.sim.clock.advance(61_000);
    await wd.executor.submit(intent(wd, 40));
    expect(refusedLines(wd)).toHaveLength(2);
    expect(refusedLines(wd)[1]).toMatchObject({ level: 50, repeated: 17 });
    expect(wd.executor.counters()['journal-refusal']).toBe(19);
    expect(wd.executor.journalHealth()).toMatchObject({ degraded: true, refused: 19 });
    expect(wd.health.map((h) => h.degraded)).toEqual([true]); // one announcement for the whole outage
    expect(wd.sim.market.landed).toHaveLength(0);
    // the disk is freed: the next intent is journaled and lands, and the outage ends (announced once)
    wd.disk.down = undefined;
    await wd.executor.submit(intent(wd, 50));
    await runUntil(wd, () => fillsOf(wd, 'out-50').length === 1);
    expect(wd.health.map((h) => h.degraded)).toEqual([true, false]);
    // a new outage is announced again
    wd.disk.down = 'create';
    await wd.executor.submit(intent(wd, 60));
    expect(wd.health.map((h) => h.degraded)).toEqual([true, false, true]);
    // no refused intent left a row a restart could act on
    wd.disk.down = undefined;
    await runUntil(wd, () => true);
    for (const r of refused) expect(await wd.journal.get(r.intentId)).toBeUndefined();
  });

  it('a refusal whose denial the journal could not write is denied once the journal writes again, never left NEW for a restart', async () => {
    w = await world();
    const wd = w;
    wd.disk.down = 'deny';
    // over the per-trade cap: admission refuses it, the NEW row is written, its denial is not
    await wd.executor.submit(intent(wd, 70, { spendLamports: 3n * BigInt(LAMPORTS_PER_SOL) }));
    // an invalid intent (no amount) the same way
    await wd.executor.submit(intent(wd, 71, { spendLamports: 0n }));
    for (const id of ['out-70', 'out-71']) {
      expect(wd.reports.filter((r) => r.intentId === id).map((r) => (r.type === 'rejected' ? r.code : r.type))).toEqual(['LIVE_JOURNAL_UNAVAILABLE']);
      expect((await wd.journal.get(id))?.state).toBe('NEW');
    }
    await runUntil(wd, () => (wd.disk.fails.deny ?? 0) >= 3); // retried with backoff while the disk is full
    expect(wd.executor.journalHealth().degraded).toBe(true);
    wd.disk.down = undefined;
    await runUntil(
      wd,
      async () =>
        (await wd.journal.get('out-70'))?.reported === true && (await wd.journal.get('out-71'))?.reported === true && !wd.executor.journalHealth().degraded,
    );
    for (const id of ['out-70', 'out-71']) {
      expect(await wd.journal.get(id)).toMatchObject({ state: 'DENIED', code: 'LIVE_JOURNAL_UNAVAILABLE', done: true });
      expect(wd.reports.filter((r) => r.intentId === id)).toHaveLength(1);
    }
    expect(await wd.journal.unresolved()).toEqual([]);
    expect(wd.sim.market.landed).toHaveLength(0);
  });
});

describe('exits while the journal cannot write (issue 38 case 4, through the engine)', () => {
  it('a buy landed during the outage opens its position with its stop loss from memory; the stop loss sells during the outage; book = journal = wallet at the end', async () => {
    const armed = new Set<string>();
    w = await world({ op: 'resolve', ids: armed }, false);
    const wd = w;
    const sol0 = await lamports(wd);
    const idle = defineStrategy({ id: 'idle', params: z.strictObject({}), rooms: () => [] });
    const feed = fakeFeed(wd.sim.clock);
    const engine = createEngine({
      feed,
      clock: wd.sim.clock,
      random: seededRandom(1),
      executor: {
        start: (sink) => wd.executor.start((r) => (wd.reports.push(r), sink(r))),
        submit: (i) => (armed.add(i.id), wd.executor.submit(i)),
        stop: (signal) => wd.executor.stop(signal),
      },
      strategies: [instantiateStrategy(idle, {}, { id: 'idle', exits: { stopLossBps: 5_000 } })],
      risk: {},
      startingCashLamports: sol0,
      execution: { slippageBps: 300 as Bps, priorityFeeLamports: 100_000n as Lamports, defaultDecimals: 6 },
    });
    const started = engine.start();
    await runUntil(wd, () => true);
    await started;
    const entered = engine.manual({ action: 'enter', strategyId: 'idle', mint: wd.mint, spendLamports: 500_000_000n }, { by: 'test', why: 'issue 38' });
    expect(entered).toMatchObject({ ok: true });
    const position = () => engine.portfolio.position('idle', wd.mint);
    await runUntil(wd, () => (position()?.tokenRaw ?? 0n) > 0n);
    const buy = wd.reports.find((r) => r.type === 'filled');
    expect(wd.disk.down).toBe('resolve');
    expect(wd.executor.journalHealth().degraded).toBe(true);
    expect(await wd.journal.landed()).toEqual([]); // the journal does not have it yet: the position came from memory
    expect(position()?.tokenRaw).toBe(buy?.type === 'filled' ? buy.fill.tokenAmount : -1n);
    // the price falls 90 %: the stop loss sells everything, still during the outage
    const paid = buy?.type === 'filled' ? Number(buy.fill.solAmount) / 1e9 / (Number(buy.fill.tokenAmount) / 1e6) : 0;
    feed.push(`price:token:${wd.mint}`, priceFrame(paid / 10, { time: wd.sim.clock.now() }));
    await runUntil(wd, () => position() === undefined || position()?.tokenRaw === 0n);
    expect(wd.reports.filter((r) => r.type === 'filled')).toHaveLength(2);
    expect(wd.executor.journalHealth().degraded).toBe(true);
    // the disk is freed: the journal catches up, without a restart
    wd.disk.down = undefined;
    await runUntil(wd, async () => !wd.executor.journalHealth().degraded && (await wd.journal.unresolved()).length === 0);
    const fills = wd.reports.flatMap((r) => (r.type === 'filled' ? [r.fill] : []));
    expect((await wd.journal.landed()).map((r) => r.fill)).toEqual(fills);
    expect(await tokens(wd)).toBe(0n);
    expect(engine.portfolio.totals().cashLamports).toBe(await lamports(wd));
    await engine.stop();
  });
});
