/** The dashboard page's formatting helpers that decide what an operator reads: clocks and chart room. */
import { describe, expect, it } from 'vitest';
import { positionChartSize, RUN_TIME, time } from '../../src/service/dashboard/ui/format.js';

describe('dashboard formatting', () => {
  it('gives a position chart room: two side by side on a wide card, never narrower than 360 px', () => {
    const wide = positionChartSize(1_240);
    expect(wide.width).toBeGreaterThanOrEqual(360);
    expect(wide.height).toBeGreaterThanOrEqual(200);
    expect(2 * wide.width + 16).toBeLessThanOrEqual(1_240);
    expect(positionChartSize(500).width).toBe(360);
    expect(positionChartSize(0).width).toBeGreaterThanOrEqual(360);
  });

  it('labels the run-clock times of fills and decisions as run time, in UTC as they are printed', () => {
    expect(RUN_TIME).toBe('run time (UTC)');
    expect(time(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('03:04:05');
  });
});
