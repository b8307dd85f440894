/**
 * The report's breakdowns and the sweep page in a real browser (Debian's chromium through
 * playwright-core): the breakdown tables agree with report.json (exits by rule carry no prices, the
 * day table adds up to the closed trades, per-token rows, streaks), the exposure chart is painted,
 * a breakdown column sorts, and sweep.html shows the out-of-sample headline and every fold.
 * Skipped with a reason when /usr/bin/chromium is absent, except under CI=true where it must run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { browserTestsRun, launchChromium, openRendered, watchedPage } from '../helpers/chromium.js';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import type { BacktestReport } from '../../src/research/report/report-types.js';
import { runBacktestJob } from '../../src/research/backtest/backtest-job.js';
import { runSweep } from '../../src/research/backtest/run-sweep.js';
import { parseSetOption } from '../../src/research/backtest/sweep-grid.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';

const runs = browserTestsRun('report-extras-browser.test');

const dir = mkdtempSync(join(tmpdir(), 'cp-report-x-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(runs)('report breakdowns and sweep page in headless Chromium', () => {
  it('shows the breakdowns as report.json has them, and the sweep headline with its folds', async () => {
    const file = 'config/paper-sim.yaml';
    const rec = join(dir, 'rec');
    await recordSimulator({ seed: 11, durationMs: 90 * 60_000, loaded: loadDeployment(file), dir: rec, redactor: createRedactor() });
    const job = await runBacktestJob({ file, data: rec, outDir: join(dir, 'out'), sampleMs: 30_000 });
    const report = JSON.parse(readFileSync(job.files.report, 'utf8')) as BacktestReport;
    const x = report.extras!;
    expect(report.metrics.trades).toBeGreaterThan(3);
    expect(x.hourly.hours).toBe(1);
    const sweep = await runSweep({
      file,
      data: [rec],
      axes: [parseSetOption('risk.maxOpenPositions=2,6')],
      folds: 2,
      walkForwardPct: 60,
      minTrades: 1,
      workers: 0,
      outDir: join(dir, 'sweep'),
    });

    const browser = await launchChromium();
    try {
      const { page, problems } = await watchedPage(browser, { width: 1280, height: 900 });
      await openRendered(page, job.files.html);
      const rows = (id: string): Promise<string[][]> =>
        page.$$eval(`#${id} tbody tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));

      const exits = await rows('by-exit-rule');
      expect(exits.map((r) => [r[0], Number(r[1]), r[3]])).toEqual(x.byExitRule.map((g) => [g.key, g.trades, g.pnlSol]));
      for (const [rule] of exits) expect(rule).toMatch(/^(take profit level \d+|stop loss|trailing stop|time stop|safety exit|manual|strategy)$/);
      const days = await rows('by-day');
      expect(days.reduce((n, r) => n + Number(r[1]), 0)).toBe(report.metrics.trades);
      expect((await rows('by-token')).map((r) => r[0])).toEqual(x.byToken.map((t) => t.key));
      expect(await rows('streaks')).toEqual([[String(x.streaks.longestWin), String(x.streaks.longestLoss)]]);
      expect((await rows('durations')).map((r) => Number(r[1]))).toEqual([x.durations.winners.count, x.durations.losers.count]);
      expect((await rows('hourly'))[0]).toEqual(['Hours', '1']);
      const painted = await page.evaluate<number>(`(() => {
        const c = document.querySelector('#exposure canvas');
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
        return n;
      })()`);
      expect(painted).toBeGreaterThan(500);
      // The breakdown tables sort like the others: PnL ascending on a click.
      await page.click('#by-token thead th:nth-child(4)');
      const pnl = (await rows('by-token')).map((r) => Number(r[3]));
      expect(pnl).toEqual([...pnl].sort((a, b) => a - b));

      await page.goto(pathToFileURL(join(dir, 'sweep', 'sweep.html')).href);
      expect(await page.textContent('#headline')).toContain(`${sweep.headline.netPnlSol} SOL over ${sweep.headline.trades} trades`);
      expect(await page.textContent('#headline')).toContain('Out of sample (2 folds');
      expect(await page.$$eval('#folds tr', (trs) => trs.length)).toBe(1 + 2);
      expect(await page.$$eval('#cells tr', (trs) => trs.length)).toBe(1 + 2);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
