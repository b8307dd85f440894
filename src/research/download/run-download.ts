/**
 * `chainpilot download`: builds a recording from the service's REST history for a time window and
 * a token selection (explicit mints, and/or discovery lists with a cap), through the typed data API
 * client. Per token: its record (name, symbol, decimals, pools), its graduation time (search), and
 * its whole trade and liquidity history (`events=all` with each wallet's identity, oldest first, 500 a page, the opaque cursor
 * sent back unchanged) up to the window's end. Requests are paced and 429s slow the pace (see
 * request-pacer.ts); every page is kept on disk as it arrives, so an interrupted download resumes
 * (download-state.ts). The frames are then rebuilt (rebuild-frames.ts) and written in the format
 * `chainpilot record` writes, with a header that names the rooms rebuilt whole (`covered`) and the
 * rooms REST cannot rebuild (`absent`), so a backtest says which rooms its strategies joined blind.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createDataApiClient, type DataApiClient } from '../../client/data-api/index.js';
import type { RetryOptions } from '../../client/http/index.js';
import { ChainpilotError, createRedactor, silentLogger, type Redactor } from '../../core/index.js';
import { RECORDING_FORMAT, type RecordingHeader } from '../replay/recording-format.js';
import { mergeFrameFiles, writeTokenFrames } from './merge-frames.js';
import { createRecordingWriter } from '../replay/recording-writer.js';
import { chainpilotVersion } from '../record/version.js';
import { openDownloadState, type DownloadState } from './download-state.js';
import { ABSENT_ROOMS, absentRoomsOf, coveredRooms, rebuildFrames, type TokenInfo } from './rebuild-frames.js';
import { historyNamesRoles } from './rebuild-safety.js';
import { createRequestPacer, type RequestPacer } from './request-pacer.js';
import { selectTokens, type DiscoveryList } from './select-tokens.js';

export interface DownloadOptions {
  /** `{base_url}` of the token data API, and its key. */
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly fromMs: number;
  readonly toMs: number;
  /** Explicit mints (first), then tokens of these discovery lists, up to `maxTokens`. */
  readonly mints?: readonly string[];
  readonly lists?: readonly DiscoveryList[];
  /** Cap of the selection (default 100). */
  readonly maxTokens?: number;
  readonly outDir: string;
  readonly gzip?: boolean;
  /** Requests per second at most (default 5). */
  readonly requestsPerSec?: number;
  /** Endpoint name in the header: `simulator`, or the service's host (default: the base URL's host). */
  readonly endpointName?: string;
  /** What identifies the history's source in the resume key (default: the base URL's host). */
  readonly sourceId?: string;
  /** The header's clock: `simulator` for a simulator's history (default `wall`). */
  readonly clock?: 'wall' | 'simulator';
  readonly redactor?: Redactor;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: DownloadProgress) => void;
  /** The HTTP client's retries (tests shorten them). */
  readonly httpRetry?: RetryOptions;
  /** First wait of the download's own retries (default 2000 ms). */
  readonly backoffMs?: number;
}

export interface DownloadProgress {
  readonly tokensDone: number;
  readonly tokens: number;
  readonly pages: number;
  readonly requests: number;
  readonly rateLimited: number;
}

export interface DownloadResult {
  readonly files: readonly string[];
  readonly tokens: readonly string[];
  /** True when this run continued a partial download. */
  readonly resumed: boolean;
  /** History pages fetched by this run. */
  readonly pages: number;
  readonly requests: number;
  /** 429 answers met (each retried after its Retry-After). */
  readonly rateLimited: number;
  readonly rows: number;
  readonly frames: number;
  /** Frames by room kind (`price`, `transaction`, `curve`, `liquidity`, `graduated`). */
  readonly framesByKind: Readonly<Record<string, number>>;
  readonly skippedRows: number;
}

const PAGE_LIMIT = 500;

const compactIso = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/** What decides the download's content: a resume with another key is refused. */
function optionsKey(o: DownloadOptions): string {
  const source = o.sourceId ?? new URL(o.baseUrl).host;
  return createHash('sha256')
    .update(JSON.stringify({ source, from: o.fromMs, to: o.toMs, mints: o.mints ?? [], lists: o.lists ?? [], max: o.maxTokens ?? 100, enrich: 'identity' }))
    .digest('hex');
}

/** `curve` for a milestone room (`{market}:curve:{pct}`), else the room's first word (`price`, `transaction`, `holders`, `top10`...). */
const kindOf = (room: string): string => (room.includes(':curve:') ? 'curve' : room.slice(0, room.indexOf(':') < 0 ? room.length : room.indexOf(':')));

async function fetchToken(api: DataApiClient, pacer: RequestPacer, mint: string): Promise<TokenInfo> {
  const detail = await pacer.run(`the record of ${mint}`, () => api.getToken(mint));
  const found = await pacer.run(`the search for ${mint}`, () => api.search({ query: mint }));
  const row = found.data.find((r) => (r as { mint?: unknown }).mint === mint || (r as { token?: { mint?: unknown } }).token?.mint === mint);
  const token = detail.token as Readonly<Record<string, unknown>>;
  const decimals = typeof token['decimals'] === 'number' ? token['decimals'] : typeof row?.['decimals'] === 'number' ? row['decimals'] : 6;
  return {
    mint,
    token,
    pools: detail.pools,
    decimals,
    graduationTime: row?.graduatedAt ?? undefined,
    graduationTx: null,
  };
}

/** Pages one token's history from where the state left it, up to the window's end. */
async function fetchHistory(api: DataApiClient, pacer: RequestPacer, state: DownloadState, mint: string, toMs: number, onPage: () => void): Promise<void> {
  for (;;) {
    const p = state.data().progress[mint];
    if (p?.done) return;
    const page = await pacer.run(`page ${(p?.pages ?? 0) + 1} of the history of ${mint}`, () =>
      api.getTradesPage(
        { token: mint },
        { events: 'all', enrich: 'identity', sortDirection: 'ASC', limit: PAGE_LIMIT, ...(p?.cursor !== undefined ? { cursor: p.cursor } : {}) },
      ),
    );
    const last = page.trades.at(-1) as { time?: unknown } | undefined;
    const pastWindow = typeof last?.time === 'number' && last.time > toMs;
    state.addPage(mint, page.trades, page.nextCursor, !page.hasNextPage || pastWindow);
    onPage();
  }
}

const invalid = (message: string, field: string): ChainpilotError =>
  new ChainpilotError('RECORDING_DOWNLOAD_INVALID', message, { retry: 'not_retryable', context: { field } });

export async function runDownload(o: DownloadOptions): Promise<DownloadResult> {
  if (!(Number.isSafeInteger(o.fromMs) && Number.isSafeInteger(o.toMs) && o.toMs > o.fromMs)) throw invalid('download: --to must be later than --from', 'to');
  if ((o.mints ?? []).length === 0 && (o.lists ?? []).length === 0)
    throw invalid('download: name the tokens (--tokens MINT,...) or discovery lists (--lists graduated,graduating,trending,latest)', 'tokens');
  const redactor = o.redactor ?? createRedactor();
  redactor.add(o.apiKey);
  const pacer = createRequestPacer({
    perSec: o.requestsPerSec ?? 5,
    ...(o.backoffMs !== undefined ? { backoffMs: o.backoffMs } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const api = createDataApiClient({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    redactor,
    ...(o.httpRetry ? { retry: o.httpRetry } : {}),
    telemetry: { retry: (_api, status) => status === 429 && pacer.rateLimited() },
  });
  try {
    const { state, resumed } = await openDownloadState(o.outDir, optionsKey(o), () =>
      selectTokens(api, pacer, { mints: o.mints ?? [], lists: o.lists ?? [], maxTokens: o.maxTokens ?? 100, fromMs: o.fromMs, toMs: o.toMs }),
    );
    const tokens = state.data().tokens;
    let pages = 0;
    let done = 0;
    const progress = (): void => {
      const s = pacer.stats();
      o.onProgress?.({ tokensDone: done, tokens: tokens.length, pages, requests: s.requests, rateLimited: s.rateLimited });
    };
    progress();
    for (const mint of tokens) {
      if (!state.token(mint)) state.saveToken(await fetchToken(api, pacer, mint));
      await fetchHistory(api, pacer, state, mint, o.toMs, () => {
        pages++;
        progress();
      });
      done++;
      progress();
    }
    // one token at a time: its frames go to a file, then the files are merged by time
    const framesByKind: Record<string, number> = {};
    const frameFiles: string[] = [];
    let rows = 0;
    let skippedRows = 0;
    tokens.forEach((mint, i) => {
      const r = rebuildFrames(state.token(mint)!, state.rows(mint) as Readonly<Record<string, unknown>>[], o.fromMs, o.toMs);
      for (const f of r.frames) framesByKind[kindOf(f.room)] = (framesByKind[kindOf(f.room)] ?? 0) + 1;
      rows += r.stats.rows;
      skippedRows += r.stats.skipped;
      const file = join(state.dir, `frames-${i}.tsv`);
      writeTokenFrames(file, r.frames);
      frameFiles.push(file);
    });
    const { files, frames } = await writeDownloadRecording(
      o,
      tokens.map((m) => ({ ...state.token(m)!, rolesNamed: historyNamesRoles(state.rows(m) as Readonly<Record<string, unknown>>[]) })),
      frameFiles,
    );
    state.remove();
    const s = pacer.stats();
    return { files, tokens, resumed, pages, requests: s.requests, rateLimited: s.rateLimited, rows, frames, framesByKind, skippedRows };
  } finally {
    await api.close();
  }
}

async function writeDownloadRecording(
  o: DownloadOptions,
  tokens: readonly TokenInfo[],
  frameFiles: readonly string[],
): Promise<{ files: readonly string[]; frames: number }> {
  const endpoint = o.endpointName ?? new URL(o.baseUrl).hostname;
  const header = (part: number, at: number): RecordingHeader => ({
    k: 'header',
    format: RECORDING_FORMAT,
    chainpilot: chainpilotVersion(),
    rooms: [],
    endpoints: { base: endpoint },
    clock: o.clock ?? 'wall',
    startedAt: o.fromMs,
    part,
    partStartedAt: at,
    source: 'download',
    origin: 'download',
    covered: tokens.flatMap(coveredRooms),
    absent: [...ABSENT_ROOMS, ...tokens.flatMap(absentRoomsOf)],
  });
  const writer = createRecordingWriter({ prefix: join(o.outDir, `download-${compactIso(o.fromMs)}`), gzip: o.gzip ?? true, header, log: silentLogger() });
  writer.write(`{"k":"start","t":${o.fromMs}}\n`, o.fromMs);
  const frames = await mergeFrameFiles(
    frameFiles,
    (line, t) => writer.write(line, t),
    () => writer.drained(),
  );
  writer.write(`{"k":"end","t":${o.toMs}}\n`, o.toMs);
  await writer.close();
  if (writer.stats().errors > 0)
    throw new ChainpilotError('RECORDING_WRITE_FAILED', `cannot write the downloaded recording in ${o.outDir}`, {
      retry: 'not_retryable',
      context: { field: 'out' },
    });
  return { files: writer.files(), frames };
}
