/**
 * The tokens a download fetches: the explicit mints first, then each discovery list in the order
 * given, without repeats, up to the cap. Lists are the service's answers at download time (not at
 * the window's time): `graduated` (/tokens/multi/graduated, newest graduations first, 500 a page),
 * `graduating` (/tokens/multi/graduating, 500, curve from 40 %, any holder count), `trending`
 * (/tokens/trending, one hour) and `latest` (/tokens/latest, the newest 100). `window` selects by
 * the window instead (`selectWindow` below): its graduations and its launches, paged. Only base58
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
  /** Rows of a `window` search page (default 500; tests page smaller). */
  readonly windowPage?: number;
}

/** Rows of a `window` search page (the search's largest page). */
const WINDOW_PAGE = 500;
/** Pages of one `window` search at most (500,000 tokens). */
const WINDOW_MAX_PAGES = 1_000;

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
      case 'window':
        await selectWindow(api, pacer, s, add, () => out.size >= s.maxTokens);
        break;
    }
  }
  return [...out];
}

/**
 * The `window` list: every token graduated in the window, then every token launched in it, newest
 * first, and the launches before it on the last page read. Both searches are paged (`page`, as the
 * graduated list pages) while a page is full and brings new tokens; the launches stop at the first
 * page that reaches back before the window (launches after the window, newest first, are paged
 * through and left out). A service that ignores `page` answers the first page again: no new token,
 * so the paging stops there.
 */
async function selectWindow(
  api: DataApiClient,
  pacer: RequestPacer,
  s: Selection,
  add: (mints: readonly string[]) => void,
  full: () => boolean,
): Promise<void> {
  const limit = s.windowPage ?? WINDOW_PAGE;
  const seen = new Set<string>();
  const from = s.fromMs as UnixMs;
  const to = s.toMs as UnixMs;
  for (let page = 1; page <= WINDOW_MAX_PAGES && !full(); page++) {
    const answer = await pacer.run(`page ${page} of the tokens graduated in the window`, () =>
      api.search({ status: 'graduated', minGraduatedAt: from, maxGraduatedAt: to, sortBy: 'graduatedAt', sortOrder: 'asc', limit, extra: { page } }),
    );
    const mints = mintsOf(answer.data);
    const fresh = mints.filter((m) => !seen.has(m));
    for (const m of fresh) seen.add(m);
    add(fresh);
    if (answer.data.length < limit || fresh.length === 0) break;
  }
  for (let page = 1; page <= WINDOW_MAX_PAGES && !full(); page++) {
    const answer = await pacer.run(`page ${page} of the tokens launched up to the window's end`, () =>
      api.search({ sortBy: 'createdAt', sortOrder: 'desc', limit, extra: { page } }),
    );
    const fresh = answer.data.filter((r) => {
      const m = mintsOf([r])[0];
      return m !== undefined && !seen.has(m);
    });
    for (const m of mintsOf(fresh)) seen.add(m);
    // launched after the window: nothing of theirs is in it
    add(mintsOf(fresh.filter((r) => typeof r['createdAt'] !== 'number' || r['createdAt'] <= s.toMs)));
    const oldest = answer.data.reduce((a, r) => (typeof r['createdAt'] === 'number' && r['createdAt'] < a ? r['createdAt'] : a), Infinity);
    if (answer.data.length < limit || fresh.length === 0 || oldest < s.fromMs) break;
  }
}
