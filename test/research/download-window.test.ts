/**
 * `download --lists window` of a one-hour simulated window rebuilds every token that traded in it,
 * not only those in a discovery list at download time: it holds every price frame a recording of
 * the same window holds, and the shipped deployment's backtest on it takes the recording backtest's
 * decisions. Measured on this seed (the README's): `--lists graduating,graduated,latest` misses 3 of
 * 4,393 price frames (tokens in no list by download time; issue 39 measured 97.8 % with lists).
 *
 * The recording steps the simulator 100 ms at a time, so its frames arrive within a step of their
 * trades, as the service sends them; at the default 1 s step every frame waits for the end of its
 * second, and that alone moves this deployment's PnL (seed 42: 1.762 SOL at 1 s, 1.666 at 100 ms; seed 5:
 * 1.183 and 1.741), more than any difference between a download and a recording (docs/backtesting.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { runBacktestJob } from '../../src/research/backtest/backtest-job.js';
import { intentAgreement } from '../helpers/intent-agreement.js';
import { downloadSimulator } from '../../src/research/download/download-sim.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-download-window-'));
const HOUR_MS = 3_600_000;
const SHIPPED = 'config/paper-sim.yaml';
let selected = 0;

beforeAll(async () => {
  await recordSimulator({ seed: 42, durationMs: HOUR_MS, stepMs: 100, loaded: loadDeployment(SHIPPED), dir: join(dir, 'rec'), redactor: createRedactor() });
  const r = await downloadSimulator({ seed: 42, durationMs: HOUR_MS, lists: ['window'], maxTokens: 1_000, outDir: join(dir, 'dl'), requestsPerSec: 1_000 });
  selected = r.tokens.length;
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface PriceFrame {
  readonly room: string;
  readonly data: { time?: number; pool?: string; price?: number };
}

describe('chainpilot download --lists window', () => {
  it('holds every price frame of a recording of the same hour', () => {
    expect(selected).toBeGreaterThan(100); // more than /tokens/latest holds
    const id = (f: PriceFrame): string => `${f.room}|${f.data.time}|${f.data.pool}`;
    const downloaded = new Map<string, number>();
    for (const l of readRecording(join(dir, 'dl')).lines) {
      const f = l.kind === 'frame' ? (l.frame as PriceFrame) : undefined;
      if (f?.room.startsWith('price:token:')) downloaded.set(id(f), l.t);
    }
    const missing: string[] = [];
    let recorded = 0;
    for (const l of readRecording(join(dir, 'rec')).lines) {
      const f = l.kind === 'frame' ? (l.frame as PriceFrame | undefined) : undefined;
      if (typeof f?.room !== 'string' || !f.room.startsWith('price:token:')) continue;
      recorded++;
      const t = downloaded.get(id(f));
      if (t === undefined || Math.abs(t - l.t) > 1_000) missing.push(id(f));
    }
    expect(recorded).toBeGreaterThan(1_000);
    expect(missing).toEqual([]);
  }, 300_000);

  it("backtests to the recording's intents and its PnL within 5 %, with a live join's latency", async () => {
    const a = await runBacktestJob({ file: SHIPPED, data: join(dir, 'rec'), outDir: join(dir, 'bt-rec') });
    const b = await runBacktestJob({ file: SHIPPED, data: join(dir, 'dl'), outDir: join(dir, 'bt-dl') });
    // the same download replayed as if a join took effect at once (the model before the join latency)
    const c = await runBacktestJob({ file: SHIPPED, data: join(dir, 'dl'), outDir: join(dir, 'bt-dl0'), joinLatencyMs: 0 });
    const { matched, a: recorded, b: downloaded } = intentAgreement(a.result.decisions, b.result.decisions);
    const pnl = (r: typeof a, id?: string): number =>
      Number(id === undefined ? r.report.metrics.tradePnlSol : r.report.byStrategy.find((s) => s.strategyId === id)!.pnlSol);
    if (process.env['DL_MEASURE'])
      console.log({
        intents: [matched, recorded, downloaded],
        total: [pnl(a), pnl(b), pnl(c)],
        curve: [pnl(a, 'curve-momentum'), pnl(b, 'curve-momentum'), pnl(c, 'curve-momentum')],
        sniper: [pnl(a, 'graduation-sniper'), pnl(b, 'graduation-sniper'), pnl(c, 'graduation-sniper')],
      });
    expect(recorded).toBeGreaterThan(200);
    expect(matched / recorded).toBeGreaterThanOrEqual(0.98);
    expect(Math.abs(pnl(b) / pnl(a) - 1)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(pnl(b, 'curve-momentum') / pnl(a, 'curve-momentum') - 1)).toBeLessThanOrEqual(0.05);
    // Joined at once, the graduation sniper buys at the new pool's first swap (16 ms after the
    // graduation), which the recording's live join, a round trip later, never saw: measured before the
    // join latency, 1.666 SOL on the recording against 1.900 on the download (+14 %).
    expect(Math.abs(pnl(c) / pnl(a) - 1)).toBeGreaterThan(0.05);
  }, 300_000);
});
