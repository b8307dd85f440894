/**
 * Reading /metrics with the real parser (parse-prometheus-text-format): families, types, labels and
 * values. That parser folds every series of a labelled histogram into one unlabelled bucket map, so
 * histogram series are read from their `_count` and `_sum` lines of the same text.
 */
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { expect } from 'vitest';

export interface Scrape {
  readonly families: PromFamily[];
  readonly text: string;
}

/** A series: its labels and its value (counters, gauges) or count and sum (histograms). */
export interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
  readonly sum?: number;
}

export const parseMetrics = (text: string): Scrape => ({ families: parsePrometheusTextFormat(text), text });

/** GET `<url>/metrics` of a daemon with its API token (expects 200): the scrape, and the age of the render it served (`x-metrics-age-ms`). */
export async function scrapeDaemon(url: string, token: string): Promise<Scrape & { readonly ageMs: number }> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return { ...parseMetrics(await res.text()), ageMs: Number(res.headers.get('x-metrics-age-ms')) };
}

function parseLabels(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) out[m[1] ?? ''] = (m[2] ?? '').replace(/\\(.)/g, '$1');
  return out;
}

/** Series of `name` whose labels include `labels`. */
export function series(s: Scrape, name: string, labels: Record<string, string> = {}): Series[] {
  const f = s.families.find((x) => x.name === name);
  if (!f) return [];
  const matches = (l: Readonly<Record<string, string>>): boolean => Object.entries(labels).every(([k, v]) => l[k] === v);
  if (f.type === 'HISTOGRAM') {
    const sums = new Map<string, number>();
    for (const m of s.text.matchAll(new RegExp(`^${name}_sum(?:\\{(.*)\\})? (\\S+)$`, 'gm'))) sums.set(m[1] ?? '', Number(m[2]));
    const out: Series[] = [];
    for (const m of s.text.matchAll(new RegExp(`^${name}_count(?:\\{(.*)\\})? (\\S+)$`, 'gm'))) {
      const l = parseLabels(m[1] ?? '');
      if (matches(l)) out.push({ labels: l, value: Number(m[2]), sum: sums.get(m[1] ?? '') ?? 0 });
    }
    return out;
  }
  return f.metrics.flatMap((m) => (matches(m.labels ?? {}) ? [{ labels: m.labels ?? {}, value: Number(m.value ?? 0) }] : []));
}

/** Sum of the values (counters, gauges) or of the counts (histograms) of the matching series. */
export function total(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  return series(s, name, labels).reduce((a, m) => a + m.value, 0);
}

/** Labels the daemon allows (issue #12): bounded, never a mint or a wallet. */
export const ALLOWED_LABELS = [
  'deployment',
  'strategy',
  'room_family',
  'code',
  'method',
  'side',
  'outcome',
  'state',
  'mode',
  'level',
  'api',
  'scope',
  'channel',
  'simulator',
  'le',
];

/** Every chainpilot family follows the naming rules, uses allowed labels only, and no label value carries a forbidden string. */
export function expectBounded(s: Scrape, forbidden: readonly string[]): void {
  for (const f of s.families.filter((x) => x.name.startsWith('chainpilot_'))) {
    expect(f.name).toMatch(/^chainpilot_[a-z0-9_]+$/);
    if (f.type === 'COUNTER') expect(f.name).toMatch(/_total$/);
    if (f.type === 'HISTOGRAM') expect(f.name).toMatch(/_seconds$/);
  }
  for (const line of s.text.split('\n')) {
    if (!line.startsWith('chainpilot_')) continue;
    const labels = parseLabels(/\{(.*)\}/.exec(line)?.[1] ?? '');
    for (const [k, v] of Object.entries(labels)) {
      expect(ALLOWED_LABELS, `${line}: label ${k}`).toContain(k);
      for (const bad of forbidden) expect(v, `${line} carries ${bad}`).not.toContain(bad);
    }
  }
}
