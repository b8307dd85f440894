/**
 * sweep.html in a real browser (Debian's chromium through playwright-core; nothing is downloaded):
 * a header click sorts the cells table by that column's value, a second click reverses it, n/a stays
 * last, and the page fits its width. Skipped with a reason when /usr/bin/chromium is absent, except
 * under CI=true where it must run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { browserTestsRun, launchChromium, openRendered, watchedPage } from '../helpers/chromium.js';
import { renderSweepHtml } from '../../src/research/report/sweep-output.js';
import { sweepFixture } from '../helpers/sweep-fixture.js';

const runs = browserTestsRun('sweep-browser.test');

const dir = mkdtempSync(join(tmpdir(), 'cp-sweep-html-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(runs)('sweep.html in headless Chromium', () => {
  it('sorts the cells table by a clicked column, numbers as numbers and n/a last, and fits the page', async () => {
    const file = join(dir, 'sweep.html');
    writeFileSync(file, renderSweepHtml(sweepFixture()));
    const browser = await launchChromium();
    try {
      const { page, problems } = await watchedPage(browser, { width: 1024, height: 800 });
      await openRendered(page, file);
      const col = (n: number) => page.$$eval(`#cells tbody tr td:nth-child(${n})`, (tds) => tds.map((td) => td.textContent ?? ''));
      expect(await col(3)).toEqual(['3', '2', '10']); // ranked order
      await page.click('#cells thead th:nth-child(3)');
      expect(await col(3)).toEqual(['2', '3', '10']);
      await page.click('#cells thead th:nth-child(3)');
      expect(await col(3)).toEqual(['10', '3', '2']);
      await page.click('#cells thead th:nth-child(4)'); // the objective, n/a for cell 1
      expect(await col(4)).toEqual(['1.25', '1.50', 'n/a']);
      await page.click('#cells thead th:nth-child(4)');
      expect(await col(4)).toEqual(['1.50', '1.25', 'n/a']);
      expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
