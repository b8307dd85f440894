/**
 * The /metrics refresher on a manual clock (vitest's fake timers drive `performance.now`,
 * `setTimeout` and `setImmediate`): scraped every 15 s it renders about once per scrape, just
 * before each, so every scrape after the second (which shows how often they come) is served a render at most `maxAgeMs` old without
 * waiting; scraped faster than `maxAgeMs / 2` it renders no more often than that; unscraped, it
 * stops.
 */
import { Gauge } from 'prom-client';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { UnixMs } from '../../src/core/index.js';
import { createDaemonMetrics } from '../../src/service/daemon/daemon-metrics.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function counted(maxAgeMs: number) {
  let renders = 0;
  const metrics = createDaemonMetrics({
    slots: () => [],
    processMetrics: false,
    maxAgeMs,
    keepWarmMs: 60_000,
    extensions: [
      (registry) =>
        void new Gauge({
          name: 'test_renders',
          help: 'renders so far',
          registers: [registry],
          collect() {
            this.set(++renders);
          },
        }),
    ],
  });
  return { metrics, renders: () => renders };
}

it('scraped every 15 s, renders once per scrape, before it: each later scrape gets a render at most maxAgeMs old', async () => {
  const { metrics, renders } = counted(1_000);
  const ages: number[] = [];
  for (let i = 0; i < 6; i++) {
    ages.push((await metrics.scrape()).ageMs);
    await vi.advanceTimersByTimeAsync(15_000);
  }
  // the first two scrapes render (the second shows how often scrapes come); then the refresher
  // renders once before each of the four others (and once before a seventh)
  expect(renders()).toBeGreaterThanOrEqual(6);
  expect(renders()).toBeLessThanOrEqual(7);
  expect(ages.slice(2).every((a) => a > 0 && a <= 1_000)).toBe(true);
  metrics.close();
});

it('scraped every 100 ms, renders at most every maxAgeMs / 2; unscraped past keepWarmMs, stops', async () => {
  const { metrics, renders } = counted(1_000);
  for (let i = 0; i < 50; i++) {
    await metrics.scrape();
    await vi.advanceTimersByTimeAsync(100);
  }
  // 5 s of scrapes: the first render and one every 500 ms
  expect(renders()).toBeLessThanOrEqual(12);
  await vi.advanceTimersByTimeAsync(61_000);
  const after = renders();
  await vi.advanceTimersByTimeAsync(60_000);
  expect(renders()).toBe(after);
  metrics.close();
});

it('an alert does not make the next scrape wait for a render: its counter shows in a render at most maxAgeMs old', async () => {
  const { metrics, renders } = counted(1_000);
  await metrics.scrape();
  const before = renders();
  metrics.observe('alpha', { type: 'alert', at: 0 as UnixMs, level: 'warn', code: 'RUNTIME_FEED_LOST', message: 'feed lost' });
  // served the render made before the alert, without rendering again
  const cached = await metrics.scrape();
  expect(renders()).toBe(before);
  expect(cached.text).not.toMatch(/^chainpilot_alerts_total\{/m);
  // once that render is older than maxAgeMs, a scrape gets one that counts the alert
  await vi.advanceTimersByTimeAsync(1_001);
  const later = await metrics.scrape();
  expect(later.ageMs).toBeLessThanOrEqual(1_000);
  expect(later.text).toMatch(/^chainpilot_alerts_total\{[^}]*deployment="alpha"[^}]*\} 1$/m);
  // a discrete change still makes the very next scrape wait for a render that began after it
  metrics.changed();
  const n = renders();
  expect((await metrics.scrape()).ageMs).toBe(0);
  expect(renders()).toBeGreaterThan(n);
  metrics.close();
});
