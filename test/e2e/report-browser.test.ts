/**
 * The HTML report in a real browser (Debian's chromium through playwright-core; nothing is
 * downloaded): it renders with no console error and no network request, its charts are drawn
 * (canvases with painted pixels), its trades table agrees with report.json, a column sorts, the page
 * fits its width and the exits table is by rule.
 * Skipped with a reason when /usr/bin/chromium is absent, except under CI=true where it must run.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { browserTestsRun, launchChromium, openRendered, watchedPage } from '../helpers/chromium.js';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import type { BacktestReport } from '../../src/research/report/report-types.js';
import { runBacktestJob } from '../../src/research/backtest/backtest-job.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';

const runs = browserTestsRun('report-browser.test');

const dir = mkdtempSync(join(tmpdir(), 'cp-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(runs)('HTML report in headless Chromium', () => {
  it('draws every chart, logs no error, makes no request, and its trades table matches report.json', async () => {
    const file = 'config/paper-sim.yaml';
    await recordSimulator({ seed: 11, durationMs: 30 * 60_000, loaded: loadDeployment(file), dir: join(dir, 'rec'), redactor: createRedactor() });
    const job = await runBacktestJob({ file, data: join(dir, 'rec'), outDir: join(dir, 'out'), sampleMs: 30_000 });
    const report = JSON.parse(readFileSync(job.files.report, 'utf8')) as BacktestReport;
    expect(report.trades.length).toBeGreaterThan(3);
    expect(statSync(job.files.html).size).toBeLessThan(300 * 1024);

    const browser = await launchChromium();
    try {
      const { page, problems, offFile: requests } = await watchedPage(browser, { width: 1280, height: 900 });
      await openRendered(page, job.files.html);

      // Every canvas has painted pixels: equity, drawdown and one price chart per traded token.
      // (a string expression: the test is compiled without the DOM library)
      const painted = await page.evaluate<number[]>(`[...document.querySelectorAll('canvas')].map((c) => {
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
        return n;
      })`);
      expect(painted.length).toBe(2 + report.prices.length + 1); // + exposure (report-extras-browser.test.ts checks it)
      for (const n of painted) expect(n).toBeGreaterThan(500);

      const rows = await page.$$eval('#trades tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      expect(rows.length).toBe(report.trades.length);
      expect(rows.map((r) => [Number(r[0]), r[1], r[2], r[8]])).toEqual(report.trades.map((t) => [t.id, t.strategyId, t.mint, t.pnlSol]));
      expect(await page.textContent('#fingerprint')).toBe(report.fingerprint);

      // Sorting by PnL orders the rows by the number, ascending then descending.
      await page.click('#trades thead th:nth-child(9)');
      const asc = await page.$$eval('#trades tbody tr td:nth-child(9)', (tds) => tds.map((td) => Number(td.textContent)));
      expect(asc).toEqual([...asc].sort((a, b) => a - b));
      await page.click('#trades thead th:nth-child(9)');
      const desc = await page.$$eval('#trades tbody tr td:nth-child(9)', (tds) => tds.map((td) => Number(td.textContent)));
      expect(desc).toEqual([...asc].reverse());

      // The page fits its width: wide tables wrap their text or scroll in their own box, never the page.
      expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      // Exits by rule, as report.json holds them (no key per price).
      const exits = await page.$$eval('#by-exit tbody tr td:first-child', (tds) => tds.map((td) => td.textContent ?? ''));
      expect(exits).toEqual(report.byExitReason.map((e) => e.reason));

      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
