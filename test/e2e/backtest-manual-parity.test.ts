/**
 * Manual decisions are part of the recording: paper runs of config/paper-sim.yaml on the embedded
 * simulator (60x, `record:` on) where an operator acts through the deployment handle mid-run (a
 * forced entry and a close; a forced entry cancelled while in its paper latency). The recording
 * keeps each `manual` line at its run-clock instant, and a backtest of it applies the same actions
 * through its engine and writes the run's decision log byte for byte (from the files and from the
 * prepared cache). An operator's pause and the kill switch are recorded as control marks, and the
 * backtest refuses the same buys with the same codes from the same instants.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDeployment, type LoadedDeployment } from '../../src/config/index.js';
import { memoryDecisionLog, type DecisionEntry } from '../../src/engine/logs/decision-log.js';
import { runBacktest } from '../../src/research/backtest/run-backtest.js';
import { runRecording } from '../../src/research/record/run-recorder.js';
import { readRecordingPrepared } from '../../src/research/replay/prepared-cache.js';
import { readRecording, type ParsedRecording } from '../../src/research/replay/recording-reader.js';
import { createDeployment, type RuntimeHandle } from '../../src/runtime/handle/create-deployment.js';
import { until } from '../runtime/helpers.js';

const root = mkdtempSync(join(tmpdir(), 'cp-manual-parity-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Ran {
  readonly loaded: LoadedDeployment;
  readonly paperLog: string;
  readonly manualLines: readonly string[];
  readonly recording: ParsedRecording;
  readonly recDir: string;
}

/** A paper run with `record:` on; `act` runs mid-run with the handle and the decisions so far. */
async function paperRun(
  name: string,
  edit: (yaml: string) => string,
  act: (h: RuntimeHandle, entries: readonly DecisionEntry[]) => Promise<void>,
): Promise<Ran> {
  const dir = join(root, name);
  // Room in the risk gate for the operator's entries (a 1 s per-token cooldown, more positions and exposure).
  const yaml = edit(readFileSync('config/paper-sim.yaml', 'utf8'))
    .replace('cooldown: 5m', 'cooldown: 1s')
    .replace('maxOpenPositions: 6', 'maxOpenPositions: 50')
    .replace('maxExposureSol: "2"', 'maxExposureSol: "20"')
    .replace('./.chainpilot/paper-sim.decisions.jsonl', join(dir, 'paper.decisions.jsonl'))
    .concat(`record:\n  dir: ${join(dir, 'rec')}\n`);
  const file = join(root, `${name}.yaml`);
  writeFileSync(file, yaml);
  const loaded = loadDeployment(file);
  const paper = memoryDecisionLog();
  const entries: DecisionEntry[] = [];
  const handle = createDeployment(loaded, {
    mode: 'paper',
    recording: runRecording,
    decisions: (e) => {
      entries.push(e);
      paper.sink(e);
    },
  });
  await handle.start();
  try {
    await act(handle, entries);
    // Some more of the run after the actions.
    const at = handle.clock()!.now();
    await until(() => handle.clock()!.now() >= at + 60_000, 'a simulated minute more', 30_000);
  } finally {
    await handle.stop();
  }
  const paperLog = paper.lines.join('');
  expect(readFileSync(join(dir, 'paper.decisions.jsonl'), 'utf8')).toBe(paperLog);
  const manualLines = paper.lines.filter((l) => l.includes('"kind":"manual"'));
  const recording = readRecording(join(dir, 'rec'));
  expect(recording.badLines).toBe(0);
  // The recording holds each manual decision as journaled, at the instant it was journaled.
  const recorded = recording.lines.filter((l) => l.kind === 'manual');
  expect(recorded.map((l) => (l.kind === 'manual' ? `${JSON.stringify(l.entry)}\n` : ''))).toEqual(manualLines);
  expect(recorded.map((l) => l.t)).toEqual(manualLines.map((l) => (JSON.parse(l) as { at: number }).at));
  return { loaded, paperLog, manualLines, recording, recDir: join(dir, 'rec') };
}

/** The first bought token and the other strategy's name; resolves once the risk gate's per-token cooldown (1 s here) since that fill passed. */
async function otherStrategyOnFirstBuy(h: RuntimeHandle, entries: readonly DecisionEntry[]): Promise<{ mint: string; other: string }> {
  const first = (): DecisionEntry | undefined => entries.find((e) => e.kind === 'fill' && e.side === 'buy');
  await until(() => first() !== undefined, 'a first buy fill', 60_000);
  const fill = first() as Extract<DecisionEntry, { kind: 'fill' }>;
  await until(() => h.clock()!.now() > fill.at + 1_000, 'the cooldown to pass', 30_000);
  return { mint: fill.mint, other: fill.strategyId === 'curve-momentum' ? 'graduation-sniper' : 'curve-momentum' };
}

const filled = (entries: readonly DecisionEntry[], id: string | undefined): boolean => entries.some((e) => e.kind === 'fill' && e.intentId === id);

describe('backtest parity with manual actions', () => {
  it('replays a forced entry and a manual close taken through the handle, writing the paper decision log byte for byte', async () => {
    const ids: (string | undefined)[] = [];
    const ran = await paperRun(
      'enter-close',
      // the close must fill, whatever the token did in its 250 ms of paper latency (parity holds either way)
      (y) => y.concat('execution: { slippageBps: 10000 }\n'),
      async (h, entries) => {
        // A token one strategy bought: the operator forces the other one into it, then closes that position.
        const { mint, other } = await otherStrategyOnFirstBuy(h, entries);
        const enter = h.manual!({ action: 'enter', mint, strategyId: other, spendLamports: 50_000_000n }, { by: 'e2e operator', why: 'forced entry' });
        expect(enter, JSON.stringify(enter)).toMatchObject({ ok: true });
        ids.push(enter.ok ? enter.intentId : undefined);
        // Closed right after the fill (not after a poll: at 60x a poll can let the position's own exit rules sell it first).
        let close: ReturnType<NonNullable<RuntimeHandle['manual']>> | undefined;
        const off = h.events.on((e) => {
          if (e.type !== 'decision' || e.entry.kind !== 'fill' || e.entry.intentId !== ids[0]) return;
          off();
          setImmediate(() => {
            close = h.manual!({ action: 'close', mint, strategyId: other, fractionBps: 10_000 }, { by: 'e2e operator', why: 'take it off' });
            ids.push(close.ok ? close.intentId : undefined);
          });
        });
        await until(() => close !== undefined, 'the forced entry to fill and the close to be taken', 30_000);
        expect(close, JSON.stringify(close)).toMatchObject({ ok: true });
        await until(() => filled(entries, ids[1]), 'the manual close to fill', 30_000);
      },
    );
    expect(ran.manualLines).toHaveLength(2);

    const bt = await runBacktest({ loaded: ran.loaded, recording: ran.recording });
    expect(bt.decisionLog).toBe(ran.paperLog);
    // The forced entry and the close were replayed as intents with the same ids, and filled.
    for (const id of ids) expect(filled(bt.decisions, id)).toBe(true);

    readRecordingPrepared(ran.recDir, { version: 'manual-parity' });
    const cached = readRecordingPrepared(ran.recDir, { version: 'manual-parity' });
    expect(cached.cache.status).toBe('hit');
    expect((await runBacktest({ loaded: ran.loaded, recording: cached.recording })).decisionLog).toBe(ran.paperLog);
  }, 120_000);

  it('replays a forced entry cancelled while it waited in the paper latency (cancelled in the same turn), so the backtest never fills it either', async () => {
    let id: string | undefined;
    const ran = await paperRun(
      'enter-cancel',
      (y) => y,
      async (h, entries) => {
        const { mint, other } = await otherStrategyOnFirstBuy(h, entries);
        const enter = h.manual!({ action: 'enter', mint, strategyId: other, spendLamports: 50_000_000n }, { by: 'e2e operator', why: 'forced entry' });
        expect(enter, JSON.stringify(enter)).toMatchObject({ ok: true });
        id = enter.ok ? enter.intentId : undefined;
        expect(h.manual!({ action: 'cancel', intentId: id! }, { by: 'e2e operator', why: 'changed my mind' })).toMatchObject({ ok: true });
        await until(() => entries.some((e) => e.kind === 'unfilled' && e.intentId === id), 'the cancelled intent to end', 30_000);
      },
    );
    expect(ran.manualLines.map((l) => (JSON.parse(l) as { action: string }).action)).toEqual(['enter', 'cancel']);
    // The run never filled it.
    expect(ran.paperLog).not.toMatch(new RegExp(`"kind":"fill","at":\\d+,"intentId":"${id!}"`));

    const bt = await runBacktest({ loaded: ran.loaded, recording: ran.recording });
    expect(bt.decisionLog).toBe(ran.paperLog);
    expect(bt.decisions.some((e) => e.kind === 'unfilled' && e.intentId === id)).toBe(true);
    expect(filled(bt.decisions, id)).toBe(false);
  }, 120_000);

  it('replays the manual hold (paper.manualHold): a forced entry that fills only after its hold, and one cancelled seconds into it, the same in the backtest', async () => {
    const ids: string[] = [];
    let placedAt = 0;
    const meta = { by: 'e2e operator', why: 'held entry' };
    const ran = await paperRun(
      'enter-hold',
      // the held buys must fill whatever the token did in 20 s (parity holds either way)
      (y) => y.replace('latency: 250ms', 'latency: 250ms\n  manualHold: 20s').concat('execution: { slippageBps: 10000 }\n'),
      async (h, entries) => {
        const { mint, other } = await otherStrategyOnFirstBuy(h, entries);
        const first = h.manual!({ action: 'enter', mint, strategyId: other, spendLamports: 50_000_000n }, meta);
        expect(first, JSON.stringify(first)).toMatchObject({ ok: true });
        ids.push(first.ok ? first.intentId : '');
        placedAt = h.clock()!.now();
        await until(() => h.clock()!.now() >= placedAt + 5_000, 'five seconds of the hold', 30_000);
        // still held: the strategy's 250 ms latency passed long ago
        expect(entries.some((e) => (e.kind === 'fill' || e.kind === 'unfilled') && e.intentId === ids[0])).toBe(false);
        // the other strategy's buy is still unresolved (ENGINE_BUY_IN_FLIGHT): the second goes to the one that bought first
        const owner = other === 'curve-momentum' ? 'graduation-sniper' : 'curve-momentum';
        const second = h.manual!({ action: 'enter', mint, strategyId: owner, spendLamports: 40_000_000n }, meta);
        expect(second, JSON.stringify(second)).toMatchObject({ ok: true });
        ids.push(second.ok ? second.intentId : '');
        const secondAt = h.clock()!.now();
        await until(() => h.clock()!.now() >= secondAt + 5_000, 'five seconds into the second hold', 30_000);
        expect(h.manual!({ action: 'cancel', intentId: ids[1]! }, { by: 'e2e operator', why: 'changed my mind' })).toMatchObject({ ok: true });
        await until(() => filled(entries, ids[0]), 'the first held entry to fill after its hold', 30_000);
      },
    );
    const fill = JSON.parse(ran.paperLog.split('\n').find((l) => l.includes('"kind":"fill"') && l.includes(ids[0]!)) ?? '{}') as { at?: number };
    expect(fill.at).toBeGreaterThanOrEqual(placedAt + 20_250);
    expect(ran.paperLog).toMatch(new RegExp(`"kind":"unfilled","at":\\d+,"intentId":"${ids[1]!}".*"ENGINE_INTENT_CANCELLED"`));

    const bt = await runBacktest({ loaded: ran.loaded, recording: ran.recording });
    expect(bt.decisionLog).toBe(ran.paperLog);
    expect(filled(bt.decisions, ids[0])).toBe(true);
    expect(filled(bt.decisions, ids[1])).toBe(false);
  }, 120_000);

  it('replays an operator pause and the kill switch: the backtest refuses the same buys with the same codes, and without the marks it would not', async () => {
    const deniedWith = (entries: readonly DecisionEntry[], code: string, after: number): boolean =>
      entries.some((e) => e.kind === 'denied' && e.side === 'buy' && e.code === code && e.at >= after);
    const ran = await paperRun(
      'pause-kill',
      (y) => y,
      async (h, entries) => {
        await until(() => entries.some((e) => e.kind === 'fill' && e.side === 'buy'), 'a first buy fill', 60_000);
        let at = h.clock()!.now();
        h.pause('e2e pause');
        await until(() => deniedWith(entries, 'RUNTIME_ENTRIES_PAUSED', at), 'a buy refused while paused', 60_000);
        h.resume();
        at = h.clock()!.now();
        await h.kill('e2e kill');
        await until(() => deniedWith(entries, 'RISK_KILL_SWITCH', at), 'a buy refused by the kill switch', 60_000);
        await h.unkill();
      },
    );
    const marks = ran.recording.lines.flatMap((l) => (l.kind === 'control' ? [l.mark] : []));
    expect(marks).toEqual([
      { kind: 'entries', buy: { code: 'RUNTIME_ENTRIES_PAUSED', reason: 'entries are paused: paused by the operator: e2e pause' }, sell: null },
      { kind: 'entries', buy: null, sell: null },
      { kind: 'kill', on: true, reason: 'e2e kill' },
      { kind: 'kill', on: false, reason: null },
    ]);
    expect(ran.paperLog).toContain('"code":"RUNTIME_ENTRIES_PAUSED"');
    expect(ran.paperLog).toContain('"code":"RISK_KILL_SWITCH"');

    const bt = await runBacktest({ loaded: ran.loaded, recording: ran.recording });
    expect(bt.decisionLog).toBe(ran.paperLog);
    // The marks are what makes it so: the same recording without them admits buys the run refused.
    const unmarked = { ...ran.recording, lines: ran.recording.lines.filter((l) => l.kind !== 'control') };
    const free = await runBacktest({ loaded: ran.loaded, recording: unmarked });
    expect(free.decisionLog).not.toContain('"code":"RUNTIME_ENTRIES_PAUSED"');
    expect(free.decisionLog).not.toContain('"code":"RISK_KILL_SWITCH"');
    // and the prepared cache keeps them
    readRecordingPrepared(ran.recDir, { version: 'control-parity' });
    const cached = readRecordingPrepared(ran.recDir, { version: 'control-parity' });
    expect(cached.cache.status).toBe('hit');
    expect((await runBacktest({ loaded: ran.loaded, recording: cached.recording })).decisionLog).toBe(ran.paperLog);
  }, 180_000);
});
