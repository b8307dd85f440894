/**
 * The silent-rooms notice in a real browser: a backtest of a downloaded recording (whose DCA
 * rooms are absent) renders report.html with the notice visible above the charts, one row per
 * kind of report.json, no console error and no request. Skipped with a reason when
 * /usr/bin/chromium is absent, except under CI=true where it must run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { browserTestsRun, launchChromium, openRendered, watchedPage } from '../helpers/chromium.js';
import type { BacktestReport } from '../../src/research/report/report-types.js';
import { runBacktestJob } from '../../src/research/backtest/backtest-job.js';
import { downloadSimulator } from '../../src/research/download/download-sim.js';

const runs = browserTestsRun('silent-rooms-browser.test');

const dir = mkdtempSync(join(tmpdir(), 'cp-silent-browser-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(runs)('silent rooms in report.html, in headless Chromium', () => {
  it('shows the notice above the charts, one row per kind of report.json, with no error and no request', async () => {
    await downloadSimulator({
      seed: 11,
      durationMs: 15 * 60_000,
      lists: ['graduating', 'graduated', 'latest'],
      maxTokens: 300,
      outDir: join(dir, 'dl'),
      requestsPerSec: 1000,
    });
    // the download rebuilds the shipped strategies' rooms (safety rooms included); dca-flow joins the DCA rooms REST cannot rebuild
    const file = join(dir, 'paper-dca.yaml');
    writeFileSync(file, readFileSync('config/paper-sim.yaml', 'utf8').replace('strategies:\n', 'strategies:\n  - use: dca-flow\n'));
    const job = await runBacktestJob({ file, data: join(dir, 'dl'), outDir: join(dir, 'out') });
    const report = JSON.parse(readFileSync(job.files.report, 'utf8')) as BacktestReport;
    const kinds = report.run.silentRooms!.kinds;
    expect(kinds.map((k) => k.kind).some((k) => k.startsWith('dca:'))).toBe(true);

    const browser = await launchChromium();
    try {
      const { page, problems, offFile } = await watchedPage(browser, { width: 1280, height: 900 });
      await openRendered(page, job.files.html);
      expect(await page.isVisible('#silent-rooms')).toBe(true);
      const rows = await page.$$eval('#silent-rooms tbody tr', (trs) => trs.map((tr) => tr.querySelector('td')?.textContent ?? ''));
      expect(rows).toEqual(kinds.map((k) => k.kind));
      const [notice, charts] = await Promise.all([page.locator('#silent-rooms').boundingBox(), page.locator('#equity').boundingBox()]);
      expect(notice!.y).toBeLessThan(charts!.y);
      expect(problems).toEqual([]);
      expect(offFile).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
