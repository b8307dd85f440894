/**
 * sweep.html's cells table: each cell carries its full value to sort by, and the page's own
 * comparator (run here in node from the script the page embeds) orders numbers as numbers, text by
 * locale, n/a last in both directions. test/e2e/sweep-browser.test.ts clicks it in Chromium.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { renderSweepHtml, SWEEP_SORT_SCRIPT } from '../../src/research/report/sweep-output.js';
import { sweepFixture } from '../helpers/sweep-fixture.js';

const sweepOrder = runInNewContext(`${SWEEP_SORT_SCRIPT}; sweepOrder`) as (a: string, b: string, dir: number) => number;

/** The `data-v` of column `col` in each body row, in page order. */
function column(html: string, col: number): string[] {
  const body = /<tbody>(.*)<\/tbody>/s.exec(html)![1]!;
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((r) => [...r[1]!.matchAll(/data-v="([^"]*)"/g)][col]![1]!);
}

describe('sweep.html cells table', () => {
  it('sorts by the value, numbers numerically and n/a last either way, and fits the page', () => {
    const html = renderSweepHtml(sweepFixture());
    expect(html).toContain('<thead><tr><th title="sort">rank</th><th title="sort">cell</th><th title="sort">exits.takeProfit</th>');
    expect(html).toContain('<div class="wide"><table id="cells">');
    expect(html).toMatch(/\.wide\{overflow-x:auto;max-width:100%\}/);
    // Ranked order; the take-profit column holds 3, 2, 10 and the net PnL column full values (not 2 decimals).
    expect(column(html, 2)).toEqual(['3', '2', '10']);
    expect(column(html, 5)).toEqual(['0.12', '-0.5', '0.000000001']);
    const sort = (vals: string[], dir: number) => [...vals].sort((a, b) => sweepOrder(a, b, dir));
    // As numbers (text order would put 10 before 2), n/a last ascending and descending.
    expect(sort(column(html, 2), 1)).toEqual(['2', '3', '10']);
    expect(sort(column(html, 2), -1)).toEqual(['10', '3', '2']);
    expect(sort(column(html, 3), 1)).toEqual(['1.25', '1.5', '']); // the objective's score, cell 1 n/a
    expect(sort(column(html, 3), -1)).toEqual(['1.5', '1.25', '']);
    expect(sort(column(html, 5), 1)).toEqual(['-0.5', '0.000000001', '0.12']);
    expect(sort(['b', 'a', ''], 1)).toEqual(['a', 'b', '']);
  });
});
