/**
 * `chainpilot download [DEPLOYMENT] --from T --to T (--tokens a,b | --lists graduated,...) [--out DIR]`
 * or `download --sim --seed N --duration 1h ...`: builds a recording from the service's REST
 * history (or the embedded simulator's), in the format `chainpilot record` writes.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { ChainpilotError, isChainpilotError } from '../../core/errors.js';
import { durationOption, seedOption } from '../options.js';
import { timeOption } from './backtest.js';

const LISTS = ['graduated', 'graduating', 'trending', 'latest', 'window'];

/** `--lists graduated,graduating`. */
export function listsOption(v: string): string[] {
  const lists = v.split(',').map((s) => s.trim());
  const bad = lists.filter((l) => !LISTS.includes(l));
  if (bad.length > 0 || lists.length === 0)
    throw new InvalidArgumentError(`expected some of ${LISTS.join(', ')} separated by commas; got ${JSON.stringify(v)}`);
  return lists;
}

/** `--tokens MINT,MINT`. */
export function tokensOption(v: string): string[] {
  const mints = v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (mints.length === 0 || mints.some((m) => !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(m)))
    throw new InvalidArgumentError(`expected token addresses (base58) separated by commas; got ${JSON.stringify(v)}`);
  return mints;
}

function positiveInt(v: string): number {
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!(Number.isSafeInteger(n) && n >= 1 && n <= 100_000)) throw new InvalidArgumentError(`expected an integer from 1 to 100000; got ${JSON.stringify(v)}`);
  return n;
}

interface DownloadOpts {
  from?: number;
  to?: number;
  sim?: boolean;
  seed?: number;
  duration?: number;
  start?: number;
  tokens?: string[];
  lists?: string[];
  maxTokens: number;
  rate: number;
  out: string;
  gzip: boolean;
}

export function registerDownload(program: Command): void {
  program
    .command('download')
    .description("build a recording from the service's REST history (trades, prices, curve milestones, graduations) for backtests")
    .argument('[deployment]', 'deployment YAML file: its endpoints.remote (base URL and API key); not needed with --sim')
    .option('--from <time>', 'window start (ISO or Unix ms)', timeOption)
    .option('--to <time>', 'window end (ISO or Unix ms)', timeOption)
    .option('--sim', "download the embedded simulator's history: it runs --duration from --start first (deterministic)")
    .option('--seed <n>', 'simulator seed (with --sim)', seedOption)
    .option('--duration <time>', 'window length with --sim (default 1h)', durationOption)
    .option('--start <time>', 'simulated start with --sim (default 2026-01-01T00:00:00Z)', timeOption)
    .option('--tokens <mints>', 'these tokens (comma-separated addresses)', tokensOption)
    .option(
      '--lists <names>',
      "and the tokens of these discovery lists: graduated, graduating, trending, latest, window (the window's graduations and launches)",
      listsOption,
    )
    .option('--max-tokens <n>', 'at most this many tokens', positiveInt, 100)
    .option('--rate <n>', 'at most this many requests per second (halved on every 429, down to an eighth)', positiveInt, 5)
    .option('--out <dir>', 'directory of the recording (and of a partial download to resume)', './recordings')
    .option('--no-gzip', 'write plain .jsonl instead of .jsonl.gz')
    .action(async (file: string | undefined, opts: DownloadOpts) => {
      const [{ createProgress }, { runDownload }, { downloadSimulator }, { loadDeployment }, { createRedactor }] = await Promise.all([
        import('../progress.js'),
        import('../../research/download/run-download.js'),
        import('../../research/download/download-sim.js'),
        import('../../config/index.js'),
        import('../../core/redact.js'),
      ]);
      const progress = createProgress('download', 'tokens');
      const startedMs = performance.now();
      // Ctrl-C stops after the request in flight: the pages so far are kept and the same command resumes
      const stop = new AbortController();
      const onSigint = (): void => stop.abort(new ChainpilotError('CORE_ABORTED', 'interrupted (SIGINT)', { retry: 'not_retryable' }));
      process.once('SIGINT', onSigint);
      const common = {
        signal: stop.signal,
        outDir: opts.out,
        gzip: opts.gzip,
        maxTokens: opts.maxTokens,
        requestsPerSec: opts.rate,
        redactor: createRedactor(),
        ...(opts.tokens ? { mints: opts.tokens } : {}),
        ...(opts.lists ? { lists: opts.lists as ('graduated' | 'graduating' | 'trending' | 'latest' | 'window')[] } : {}),
        onProgress: (p: { tokensDone: number; tokens: number; pages: number; requests: number; rateLimited: number }) =>
          progress.update(
            p.tokensDone,
            p.tokens,
            `${p.pages} pages, ${p.requests} requests, ${p.rateLimited} answered 429`,
            p.tokensDone / Math.max(0.001, (performance.now() - startedMs) / 1000),
          ),
      };
      try {
        let r;
        if (opts.sim) {
          r = await downloadSimulator({
            ...common,
            seed: opts.seed ?? 1,
            durationMs: opts.duration ?? 3_600_000,
            ...(opts.start !== undefined ? { startAt: opts.start } : {}),
          });
        } else {
          if (!file) throw new InvalidArgumentError('download needs a deployment file (its endpoints.remote), or --sim');
          if (opts.from === undefined || opts.to === undefined) throw new InvalidArgumentError('download needs --from and --to (or --sim with --duration)');
          const loaded = loadDeployment(file);
          const remote = loaded.deployment.endpoints.remote;
          if (!remote) throw new InvalidArgumentError(`${file} has no endpoints.remote; download reads the service's REST history (or use --sim)`);
          for (const s of loaded.secrets) common.redactor.add(s);
          r = await runDownload({ ...common, baseUrl: remote.baseUrl, apiKey: remote.apiKey, fromMs: opts.from, toMs: opts.to });
        }
        progress.stop();
        const kinds = Object.entries(r.framesByKind)
          .map(([k, n]) => `${n} ${k}`)
          .join(', ');
        process.stdout.write(
          `downloaded ${r.tokens.length} tokens${r.resumed ? ' (resumed)' : ''}: ${r.rows} history rows in ${r.pages} pages (${r.requests} requests, ${r.rateLimited} answered 429)\n` +
            `wrote ${r.frames} frames (${kinds}) into ${r.files.join(', ')}\n`,
        );
      } catch (e) {
        progress.stop();
        if (isChainpilotError(e)) {
          process.stderr.write(`chainpilot download: ${e.code}: ${e.message}\n`);
          process.exitCode = 1;
          return;
        }
        throw e;
      } finally {
        process.removeListener('SIGINT', onSigint);
      }
    });
}
