/**
 * `chainpilot download` against the embedded simulator's REST history: a download of a simulated
 * window holds the frames a recording of the same window holds (every price, curve-milestone and
 * graduation frame, with the same values; the safety shares rebuilt from the swaps), and a backtest
 * of it agrees with a backtest of the recording; 429 answers are waited out (Retry-After) without changing a byte; an interrupted
 * download resumes to the same bytes as an uninterrupted one.
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { runBacktestJob } from '../../src/research/backtest/backtest-job.js';
import { intentAgreement } from '../helpers/intent-agreement.js';
import { downloadSimulator } from '../../src/research/download/download-sim.js';
import { PARTIAL_DIR } from '../../src/research/download/download-state.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-download-'));
/** config/paper-sim.yaml with curve-momentum's holder and safety filters off: it reads only rooms a download rebuilds. */
const open = join(dir, 'open.yaml');
const shipped = 'config/paper-sim.yaml';
const WINDOW_MS = 20 * 60_000;

beforeAll(async () => {
  writeFileSync(
    open,
    readFileSync('config/paper-sim.yaml', 'utf8')
      .replace('minHolders: 10', 'minHolders: 0\n      maxTop10Pct: 100\n      maxBundlerPct: 100\n      maxSniperPct: 100\n      maxDevHoldingPct: 100')
      .replace(/decisionLog: .*/, `decisionLog: ${join(dir, 'unused.jsonl')}`),
  );
  await recordSimulator({ seed: 5, durationMs: WINDOW_MS, loaded: loadDeployment(open), dir: join(dir, 'rec'), redactor: createRedactor() });
  await recordSimulator({ seed: 5, durationMs: WINDOW_MS, loaded: loadDeployment(shipped), dir: join(dir, 'rec-shipped'), redactor: createRedactor() });
  await downloadSimulator({
    seed: 5,
    durationMs: WINDOW_MS,
    lists: ['graduating', 'graduated', 'latest'],
    maxTokens: 500,
    outDir: join(dir, 'dl'),
    requestsPerSec: 1000,
  });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Frame {
  readonly room: string;
  readonly data: {
    token?: { mint?: string } | string;
    time?: number;
    pool?: string;
    price?: number;
    price_quote?: number;
    liquidity?: number;
    market?: string;
  };
}

/** The identity of a frame of a kind a download rebuilds (undefined for other kinds). */
function identity(f: Frame): string | undefined {
  if (f.room.startsWith('price:token:')) return `${f.room}|${f.data.time}|${f.data.pool}`;
  if (f.room.includes(':curve:') || f.room === 'graduated') return `${f.room}|${typeof f.data.token === 'object' ? f.data.token.mint : ''}`;
  return undefined;
}

const bytesOf = (d: string): Buffer[] =>
  readdirSync(d)
    .filter((f) => f.endsWith('.jsonl.gz'))
    .sort()
    .map((f) => readFileSync(join(d, f)));

describe('chainpilot download', () => {
  it("holds every price, curve-milestone and graduation frame a recording of the same window holds, with the same values, within a second, and most seconds' last holder count", () => {
    const rec = readRecording(join(dir, 'rec'));
    const dl = readRecording(join(dir, 'dl'));
    expect(dl.files[0]!.header).toMatchObject({
      source: 'download',
      origin: 'download',
      clock: 'simulator',
      absent: expect.arrayContaining(['latest', 'dca:*']),
    });
    // the safety rooms are rebuilt from the swaps' wallets and identities, not marked absent
    const header = dl.files[0]!.header;
    for (const family of ['top10', 'bundlers', 'dev_holding', 'sniper', 'insider']) {
      expect(header.absent!.filter((p) => p.startsWith(`${family}:`))).toEqual([]);
      expect(header.covered!.filter((p) => p.startsWith(`${family}:`)).length).toBeGreaterThan(10);
    }
    const byId = new Map<string, { t: number; f: Frame }>();
    for (const l of dl.lines) if (l.kind === 'frame') byId.set(identity(l.frame as Frame) ?? '', { t: l.t, f: l.frame as Frame });
    const counts: Record<string, { recorded: number; matched: number }> = {};
    for (const l of rec.lines) {
      if (l.kind !== 'frame' || typeof (l.frame as Frame | undefined)?.room !== 'string') continue;
      const f = l.frame as Frame;
      const id = identity(f);
      if (id === undefined) continue;
      const kind = f.room.startsWith('price:') ? 'price' : f.room === 'graduated' ? 'graduated' : 'curve';
      const c = (counts[kind] ??= { recorded: 0, matched: 0 });
      c.recorded++;
      const m = byId.get(id);
      if (!m || Math.abs(l.t - m.t) > 1_000) continue;
      if (kind === 'price') {
        // the same USD and SOL prices, pool and market; liquidity derived from the pool's history
        expect([m.f.data.price, m.f.data.price_quote, m.f.data.market]).toEqual([f.data.price, f.data.price_quote, f.data.market]);
        expect(m.f.data.liquidity! / f.data.liquidity!).toBeCloseTo(1, 9);
      }
      c.matched++;
    }
    // measured: 888 price, 54 milestone (venue_a:curve:50) and 19 graduation frames, all matched
    expect(counts['price']!.recorded).toBeGreaterThan(500);
    expect(counts['curve']!.recorded).toBeGreaterThan(20);
    expect(counts['graduated']!.recorded).toBeGreaterThan(5);
    for (const c of Object.values(counts)) expect(c.matched).toBe(c.recorded);

    // holders: the chart keeps one count per second, so compare the last recorded count of each second
    const dlHolders = new Map<string, number[]>();
    for (const l of dl.lines) {
      const f = l.kind === 'frame' ? (l.frame as { room: string; data: { total: number } }) : undefined;
      if (f?.room.startsWith('holders:')) dlHolders.set(`${f.room}|${f.data.total}`, [...(dlHolders.get(`${f.room}|${f.data.total}`) ?? []), l.t]);
    }
    const lastOfSecond = new Map<string, { room: string; total: number; t: number }>();
    for (const l of rec.lines) {
      const f = l.kind === 'frame' ? (l.frame as { room?: string; data: { total: number; timestamp: number } } | undefined) : undefined;
      if (f?.room?.startsWith('holders:')) lastOfSecond.set(`${f.room}|${Math.floor(f.data.timestamp / 1000)}`, { room: f.room, total: f.data.total, t: l.t });
    }
    const seen = [...lastOfSecond.values()].filter((h) => dlHolders.get(`${h.room}|${h.total}`)?.some((t) => Math.abs(t - h.t) <= 1_000)).length;
    if (process.env['DL_MEASURE']) console.log('holders', seen, lastOfSecond.size);
    // measured: 129 of 138 (counts rebuilt from the swaps' wallets at every swap)
    expect(lastOfSecond.size).toBeGreaterThan(50);
    expect(seen / lastOfSecond.size).toBeGreaterThanOrEqual(0.75);
  });

  it('rebuilds the top-10, bundler, sniper and dev-holding shares the recording holds: most recorded values within a point, at the same time (within a second)', () => {
    const rec = readRecording(join(dir, 'rec-shipped'));
    const dl = readRecording(join(dir, 'dl'));
    const FIELD: Record<string, string> = {
      top10: 'totalPercentage',
      bundlers: 'totalBundlerPercentage',
      sniper: 'totalSniperPercentage',
      insider: 'totalInsiderPercentage',
      dev_holding: 'percentage',
    };
    const figure = (room: string, d: Record<string, unknown>): number | undefined => {
      const field = FIELD[room.slice(0, room.indexOf(':'))];
      const v = field === undefined ? undefined : d[field];
      return typeof v === 'number' ? v : undefined;
    };
    const downloaded = new Map<string, { t: number; v: number }[]>();
    for (const l of dl.lines) {
      const f = l.kind === 'frame' ? (l.frame as { room: string; data: Record<string, unknown> }) : undefined;
      const v = f && figure(f.room, f.data);
      if (f && v !== undefined) downloaded.set(f.room, [...(downloaded.get(f.room) ?? []), { t: l.t, v }]);
    }
    const byFamily: Record<string, { recorded: number; exact: number; withinPoint: number }> = {};
    for (const l of rec.lines) {
      const f = l.kind === 'frame' ? (l.frame as { room?: string; data: Record<string, unknown> } | undefined) : undefined;
      const v = f?.room ? figure(f.room, f.data) : undefined;
      if (!f?.room || v === undefined) continue;
      const c = (byFamily[f.room.slice(0, f.room.indexOf(':'))] ??= { recorded: 0, exact: 0, withinPoint: 0 });
      c.recorded++;
      // the frame the recording delivered at l.t was published by the swap of its timestamp, at most a second before
      const near = (downloaded.get(f.room) ?? []).filter((d) => d.t <= l.t && l.t - d.t <= 1_000).map((d) => Math.abs(d.v - v));
      if (near.some((d) => d < 0.005)) c.exact++;
      if (near.some((d) => d <= 1)) c.withinPoint++;
    }
    if (process.env['DL_MEASURE']) console.log(byFamily);
    expect(Object.keys(byFamily).sort()).toEqual(['bundlers', 'dev_holding', 'sniper', 'top10']);
    // measured (seed 5, 20 min): top10 141 of 160 within a point (24 to the hundredth), bundlers 11 of 14, sniper 7 of 10,
    // dev_holding 17 of 19. Not exact: a wallet's balance summed from its swap rows differs from the simulator's by a
    // small amount per wallet (not diagnosed; docs/backtesting.md, "What a download holds").
    for (const c of Object.values(byFamily)) expect(c.withinPoint / c.recorded).toBeGreaterThanOrEqual(0.65);
  });

  it('backtests to decisions that agree with a backtest of the recording, and names the safety rooms it cannot hold', async () => {
    /** Share of the recording backtest's intents (strategy, token, side) that the download's backtest has too, and both counts. */
    const agreement = async (
      file: string,
      rec: string,
    ): Promise<{ share: number; recorded: number; downloaded: number; b: Awaited<ReturnType<typeof runBacktestJob>> }> => {
      const a = await runBacktestJob({ file, data: join(dir, rec), outDir: join(dir, `bt-${rec}`) });
      const b = await runBacktestJob({ file, data: join(dir, 'dl'), outDir: join(dir, `bt-dl-${rec}`) });
      const { matched, a: recorded, b: downloaded } = intentAgreement(a.result.decisions, b.result.decisions);
      const out = { share: matched / recorded, recorded, downloaded, b };
      if (process.env['DL_MEASURE']) console.log(rec, matched, out.recorded, out.downloaded);
      return out;
    };
    // measured: 118 of 133 (89 %); the download's backtest has 140 intents
    const { share, recorded, b } = await agreement(open, 'rec');
    expect(recorded).toBeGreaterThan(50);
    expect(share).toBeGreaterThanOrEqual(0.85);
    // the shipped deployment also filters on top-10, bundler, sniper and dev shares, rebuilt from the swaps'
    // wallets and identities: measured @@SHIPPED@@ (before they were rebuilt: 64 of 89, 72 %, and 134 intents)
    const s = await agreement(shipped, 'rec-shipped');
    expect(s.share).toBeGreaterThanOrEqual(0.85);
    expect(s.downloaded / s.recorded).toBeLessThan(1.15);
    // holders are rebuilt from the holder chart, the other safety rooms from the swaps: none joined blind
    expect(b.report.run.silentRooms!.kinds.map((k) => [k.kind, k.why])).toEqual([]);
    expect(s.b.report.run.silentRooms!.kinds.map((k) => [k.kind, k.why])).toEqual([]);
  }, 120_000);

  it('waits out 429 answers (Retry-After) and writes the same bytes as a download that met none', async () => {
    const o = { seed: 5, durationMs: 5 * 60_000, lists: ['latest' as const], maxTokens: 3, requestsPerSec: 1000 };
    const clean = await downloadSimulator({ ...o, outDir: join(dir, 'clean') });
    const limited = await downloadSimulator({ ...o, outDir: join(dir, 'limited'), faults: { rest: { rateLimitShare: 0.3, retryAfterSeconds: 1 } } });
    expect(clean.rateLimited).toBe(0);
    expect(limited.rateLimited).toBeGreaterThan(0);
    expect(bytesOf(join(dir, 'limited'))).toEqual(bytesOf(join(dir, 'clean')));
  }, 60_000);

  it('resumes an interrupted download where it stopped, to the same bytes as one run through', async () => {
    const o = { seed: 7, durationMs: 10 * 60_000, lists: ['latest' as const], maxTokens: 8, requestsPerSec: 1000 };
    const whole = await downloadSimulator({ ...o, outDir: join(dir, 'whole') });
    const stop = new AbortController();
    await expect(
      downloadSimulator({ ...o, outDir: join(dir, 'part'), signal: stop.signal, onProgress: (p) => p.tokensDone >= 3 && stop.abort() }),
    ).rejects.toMatchObject({ code: 'RECORDING_DOWNLOAD_INTERRUPTED', message: expect.stringContaining('run the same command again to resume') });
    expect(existsSync(join(dir, 'part', PARTIAL_DIR, 'state.json'))).toBe(true);
    // a page written after the state's last record (a crash between the two) is cut off on resume
    const rowsFile = readdirSync(join(dir, 'part', PARTIAL_DIR)).find((f) => f.startsWith('rows-'))!;
    appendFileSync(join(dir, 'part', PARTIAL_DIR, rowsFile), '{"type":"buy","time":1}\n');
    await expect(downloadSimulator({ ...o, maxTokens: 9, outDir: join(dir, 'part') })).rejects.toMatchObject({ code: 'RECORDING_DOWNLOAD_INVALID' });
    const resumed = await downloadSimulator({ ...o, outDir: join(dir, 'part') });
    expect(resumed.resumed).toBe(true);
    expect(resumed.pages).toBeLessThan(whole.pages);
    expect(bytesOf(join(dir, 'part'))).toEqual(bytesOf(join(dir, 'whole')));
    expect(existsSync(join(dir, 'part', PARTIAL_DIR))).toBe(false);
  }, 60_000);
});
