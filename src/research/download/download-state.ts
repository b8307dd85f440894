/**
 * What a download has fetched so far, on disk, so that an interrupted download resumes where it
 * stopped: `<out>/.download-partial/state.json` (the options' key, the token selection as it was
 * resolved, and per token its progress) and one file per token of the history rows fetched
 * (`rows-<mint>.jsonl`, one row a line, in history order) plus its record (`token-<mint>.json`).
 * The state is written after every page (to a temporary file, then renamed), and names how many
 * bytes of the rows file that page ended at: a resume cuts the file back to that length, so a page
 * written but not yet recorded in the state is fetched again, never kept twice.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync, appendFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ChainpilotError } from '../../core/index.js';
import type { TokenInfo } from './rebuild-frames.js';

export const PARTIAL_DIR = '.download-partial';

/** Progress of one token's history. */
export interface TokenProgress {
  /** The cursor of the next page (absent before the first page). */
  readonly cursor?: string | number;
  /** Bytes of the rows file after the last recorded page. */
  readonly bytes: number;
  readonly pages: number;
  readonly done: boolean;
}

export interface DownloadStateData {
  readonly version: 1;
  /** sha256 of the options that decide what is downloaded: a resume with other options is refused. */
  readonly key: string;
  /** The token selection as resolved by the first run (discovery lists change over time). */
  readonly tokens: readonly string[];
  readonly progress: Readonly<Record<string, TokenProgress>>;
}

export interface DownloadState {
  readonly dir: string;
  readonly data: () => DownloadStateData;
  /** Records a page of rows: appends them, then the progress that includes them. */
  addPage(mint: string, rows: readonly unknown[], next: string | number | undefined, done: boolean): void;
  saveToken(info: TokenInfo): void;
  token(mint: string): TokenInfo | undefined;
  rows(mint: string): unknown[];
  /** Removes the partial download (after the recording is written). */
  remove(): void;
}

const rowsFile = (dir: string, mint: string): string => join(dir, `rows-${mint}.jsonl`);
const tokenFile = (dir: string, mint: string): string => join(dir, `token-${mint}.json`);

/**
 * Opens the partial download in `outDir` for `key`, or starts one with `tokens()` (called only when
 * there is none). Throws RECORDING_DOWNLOAD_INVALID when the partial download there was made with
 * other options.
 */
export async function openDownloadState(
  outDir: string,
  key: string,
  tokens: () => Promise<readonly string[]>,
): Promise<{ state: DownloadState; resumed: boolean }> {
  const dir = join(outDir, PARTIAL_DIR);
  const path = join(dir, 'state.json');
  let data: DownloadStateData;
  let resumed = false;
  if (existsSync(path)) {
    data = JSON.parse(readFileSync(path, 'utf8')) as DownloadStateData;
    if (data.key !== key) {
      throw new ChainpilotError(
        'RECORDING_DOWNLOAD_INVALID',
        `${outDir} holds a partial download made with other options (window, tokens, lists or service); resume it with the same options, or give another --out (or delete ${dir})`,
        { retry: 'not_retryable', context: { field: 'out' } },
      );
    }
    resumed = true;
    // cut every rows file back to its last recorded page
    for (const [mint, p] of Object.entries(data.progress)) {
      const f = rowsFile(dir, mint);
      if (existsSync(f) && statSync(f).size > p.bytes) truncateSync(f, p.bytes);
    }
  } else {
    data = { version: 1, key, tokens: [...(await tokens())], progress: {} };
    mkdirSync(dir, { recursive: true });
  }
  const save = (): void => {
    writeFileSync(`${path}.tmp`, JSON.stringify(data));
    renameSync(`${path}.tmp`, path);
  };
  if (!resumed) save();
  const state: DownloadState = {
    dir,
    data: () => data,
    addPage(mint, rows, next, done) {
      const f = rowsFile(dir, mint);
      if (rows.length > 0) appendFileSync(f, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
      const bytes = existsSync(f) ? statSync(f).size : 0;
      const prev = data.progress[mint];
      data = {
        ...data,
        progress: { ...data.progress, [mint]: { ...(next !== undefined ? { cursor: next } : {}), bytes, pages: (prev?.pages ?? 0) + 1, done } },
      };
      save();
    },
    saveToken(info) {
      writeFileSync(tokenFile(dir, info.mint), JSON.stringify(info));
    },
    token(mint) {
      const f = tokenFile(dir, mint);
      return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as TokenInfo) : undefined;
    },
    rows(mint) {
      const f = rowsFile(dir, mint);
      if (!existsSync(f)) return [];
      return readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as unknown);
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return { state, resumed };
}
