/**
 * The tokens a download fetches: the explicit mints first, then each discovery list in the order
 * given, without repeats, up to the cap. Lists are the service's answers at download time (not at
 * the window's time): `graduated` (/tokens/multi/graduated, newest graduations first, 500 a page),
 * `graduating` (/tokens/multi/graduating, 500, curve from 40 %, any holder count), `trending`
 * (/tokens/trending, one hour) and `latest` (/tokens/latest, the newest 100). Only base58
 * addresses are kept.
 */
import type { DataApiClient } from '../../client/data-api/index.js';
import type { UnixMs } from '../../core/index.js';
import type { RequestPacer } from './request-pacer.js';

export const DISCOVERY_LISTS = ['graduated', 'graduating', 'trending', 'latest', 'window'] as const;
export type DiscoveryList = (typeof DISCOVERY_LISTS)[number];

export interface Selection {
  readonly mints: readonly string[];
  readonly lists: readonly DiscoveryList[];
  readonly maxTokens: number;
  /** The window (run-clock ms, inclusive): what the `window` list selects by. */
  readonly fromMs: number;
  readonly toMs: number;
}

/** Launches the `window` list reads (the search's largest page). */
const WINDOW_LAUNCHES = 500;

/** Mints of a list answer: an array (or `{data: [...]}`) of `{token: {mint}}` or `{mint}`. */
function mintsOf(answer: unknown): string[] {
  const rows = Array.isArray(answer)
    ? (answer as unknown[])
    : Array.isArray((answer as { data?: unknown } | null)?.data)
      ? (answer as { data: unknown[] }).data
      : [];
  const out: string[] = [];
  for (const r of rows) {
    const o = r as { token?: { mint?: unknown }; mint?: unknown } | null;
    const mint = o?.token?.mint ?? o?.mint;
    if (typeof mint === 'string' && mint.length > 0) out.push(mint);
  }
  return out;
}

/** A token address (base58): anything else is left out (it also names files of the partial download). */
const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export async function selectTokens(api: DataApiClient, pacer: RequestPacer, s: Selection): Promise<string[]> {
  const out = new Set<string>();
  const add = (mints: readonly string[]): void => {
    for (const m of mints) if (out.size < s.maxTokens && ADDRESS.test(m)) out.add(m);
  };
  add(s.mints);
  for (const list of s.lists) {
    if (out.size >= s.maxTokens) break;
    switch (list) {
      case 'graduated':
        for (let page = 1; out.size < s.maxTokens; page++) {
          const mints = mintsOf(await pacer.run(`page ${page} of the graduated list`, () => api.getGraduated({ limit: 500, page })));
          add(mints);
          if (mints.length < 500) break;
        }
        break;
      case 'graduating':
        add(mintsOf(await pacer.run('the graduating list', () => api.getGraduating({ limit: 500, minHolders: 0 }))));
        break;
      case 'trending':
        add(mintsOf(await pacer.run('the trending list', () => api.getTrending('1h'))));
        break;
      case 'latest':
        add(mintsOf(await pacer.run('the latest tokens', () => api.getLatestTokens())));
        break;
      case 'window': {
        const from = s.fromMs as UnixMs;
        const to = s.toMs as UnixMs;
        const graduated = await pacer.run('the tokens graduated in the window', () =>
          api.search({ status: 'graduated', minGraduatedAt: from, maxGraduatedAt: to, sortBy: 'graduatedAt', sortOrder: 'asc', limit: WINDOW_LAUNCHES }),
        );
        add(mintsOf(graduated.data));
        const launched = await pacer.run("the tokens launched by the window's end", () =>
          api.search({ sortBy: 'createdAt', sortOrder: 'desc', limit: WINDOW_LAUNCHES }),
        );
        // launched after the window: nothing of theirs is in it
        add(mintsOf(launched.data.filter((r) => typeof r['createdAt'] !== 'number' || r['createdAt'] <= s.toMs)));
        break;
      }
    }
  }
  return [...out];
}
