/**
 * A scrape reads each deployment's health and stats once, however many gauges show them (at a
 * hundred deployments reading them per gauge made most of a scrape's time), and the next scrape
 * reads them afresh.
 */
import { expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { parseDeployment } from '../../src/config/index.js';
import type { SlotView } from '../../src/service/service-port.js';
import { createDaemonMetrics } from '../../src/service/daemon/daemon-metrics.js';
import { fakeHandle } from './fake-handle.js';

it('reads health and stats once per deployment and scrape, and afresh at the next scrape', async () => {
  const reads = { health: 0, stats: 0 };
  const slots: SlotView[] = ['alpha', 'beta'].map((name) => {
    const h = fakeHandle(parseDeployment(`version: 1\nname: ${name}\nstrategies:\n  - use: graduation-sniper\n`, `/d/${name}.yaml`), { now: () => 0 });
    h.state = 'running';
    const health = h.health.bind(h);
    const stats = h.stats.bind(h);
    return {
      name,
      file: `/d/${name}.yaml`,
      mode: 'paper',
      state: 'running',
      cause: undefined,
      restarts: 0,
      restartAt: undefined,
      handle: Object.assign(h, {
        health: () => (reads.health++, health()),
        stats: () => (reads.stats++, stats()),
        setFeed: h.setFeed,
      }),
    };
  });
  const metrics = createDaemonMetrics({ slots: () => slots, processMetrics: false });
  await metrics.render();
  // the ready gauge reads health through the slot itself: one more read each
  expect(reads).toEqual({ health: 4, stats: 2 });
  (slots[0]!.handle as ReturnType<typeof fakeHandle>).setFeed({ frames: 7 });
  const text = await metrics.render();
  expect(reads).toEqual({ health: 8, stats: 4 });
  const frames = parsePrometheusTextFormat(text).find((f) => f.name === 'chainpilot_feed_frames_received_total');
  expect(frames?.metrics.find((m) => m.labels?.['deployment'] === 'alpha')?.value).toBe('7');
});
