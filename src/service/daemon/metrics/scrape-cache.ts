/**
 * What a scrape of `/metrics` gets: the last render while it is younger than `maxAgeMs` and no
 * discrete change (a slot's state, a reload, `changed()`; an alert is not one) happened after it began, else
 * a new render. While scrapes keep coming a refresher renders once per scrape interval,
 * `maxAgeMs / 2` before the next scrape is due (at most every `maxAgeMs / 2`), so a scrape seldom
 * waits. A background render that fails is counted (`chainpilot_metrics_render_failures_total`,
 * this module's family); the next scrape renders again and answers its error. Times are wall time
 * (`performance.now`), as the lag and request histograms.
 */
import { Counter } from 'prom-client';
import type { MetricsExtension } from '../../service-port.js';

export interface ScrapeCacheOptions {
  /** Renders the text afresh. */
  readonly render: () => Promise<string>;
  /** How old a render a scrape may be served (wall ms; 0: every scrape renders). */
  readonly maxAgeMs: number;
  /** Scrapes older than this stop the refresher (wall ms). */
  readonly keepWarmMs: number;
}

export interface ScrapeCache {
  /** The render failures counter. */
  readonly metrics: MetricsExtension;
  /** The text a scrape gets, and the time since its render began. */
  scrape(): Promise<{ readonly text: string; readonly ageMs: number }>;
  /** A discrete change: the next scrape waits for a render that began after it. */
  changed(): void;
  /** Stops the refresher. */
  close(): void;
}

interface Render {
  readonly text: string;
  readonly at: number;
}

export function createScrapeCache(o: ScrapeCacheOptions): ScrapeCache {
  const { maxAgeMs, keepWarmMs } = o;
  const renderFailures = new Counter({
    name: 'chainpilot_metrics_render_failures_total',
    help: 'Background renders of /metrics that threw (the next scrape renders again and answers the error)',
    registers: [],
  });
  let last: Render | undefined;
  let inFlight: Promise<Render> | undefined;
  let changedAt = -Infinity;
  let scrapedAt = -Infinity;
  let refresher: NodeJS.Timeout | undefined;
  let closed = false;
  const refresh = (): Promise<Render> =>
    (inFlight ??= (async () => {
      const at = performance.now();
      try {
        const text = await o.render();
        if (!last || at >= last.at) last = { text, at };
        return { text, at };
      } finally {
        inFlight = undefined;
        scheduleRefresh();
      }
    })());
  // Between scrapes (an average of the last gaps): a render is timed to begin `maxAgeMs / 2` before
  // the next scrape is due, once per scrape, and no more often than every `maxAgeMs / 2`.
  let scrapeEvery: number | undefined;
  const scheduleRefresh = (): void => {
    const now = performance.now();
    // (not before a second scrape has shown how often they come)
    if (closed || maxAgeMs <= 0 || refresher || scrapeEvery === undefined || now - scrapedAt > keepWarmMs) return;
    const lead = maxAgeMs / 2;
    const every = Math.max(scrapeEvery, lead);
    let next = scrapedAt + every;
    while (last && last.at >= next - lead) next += every; // already rendered for that one
    const due = Math.max(next - lead, (last?.at ?? now) + lead) - now;
    refresher = setTimeout(
      () => {
        refresher = undefined;
        refresh().catch(() => renderFailures.inc()); // the next scrape renders again and answers its error
      },
      Math.max(0, due),
    );
    refresher.unref();
  };
  const fresh = (r: { at: number } | undefined, now: number): r is Render => r !== undefined && r.at > changedAt && now - r.at <= maxAgeMs;

  return {
    metrics: (registry) => registry.registerMetric(renderFailures),
    async scrape() {
      const now = performance.now();
      if (Number.isFinite(scrapedAt)) scrapeEvery = scrapeEvery === undefined ? now - scrapedAt : 0.7 * scrapeEvery + 0.3 * (now - scrapedAt);
      scrapedAt = now;
      let r = last;
      if (maxAgeMs <= 0 || !fresh(r, now)) {
        // a render that began after the change will do; one in flight may have begun before it
        r = await refresh();
        if (r.at <= changedAt) r = await refresh();
      } else scheduleRefresh();
      return { text: r.text, ageMs: Math.max(0, performance.now() - r.at) };
    },
    changed() {
      changedAt = performance.now();
    },
    close() {
      closed = true;
      if (refresher) clearTimeout(refresher);
      refresher = undefined;
    },
  };
}
