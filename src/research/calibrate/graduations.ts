/**
 * When each token of a recording graduated (its `graduated` room frame): the second stage of a
 * calibration fits the extra slippage of fills in graduated pools apart from the bonding curve's
 * (the two kinds of pool charge different fees, which the feed does not send). Read from the
 * recordings the backtests replayed (`calibrate --against REPORT.json --data REC_DIR`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ChainpilotError } from '../../core/index.js';

const GRADUATED = '"room":"graduated"';

/** Mint → the run-clock instant of its first `graduated` frame, over every recording file in `paths` (files or folders). */
export function graduationsOf(paths: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of paths) {
    let files: string[];
    try {
      files = statSync(p).isDirectory() ? readdirSync(p).map((f) => join(p, f)) : [p];
    } catch (e) {
      throw new ChainpilotError(
        'BACKTEST_NO_LIVE_DATA',
        `calibrate --data: cannot read ${p} (${(e as NodeJS.ErrnoException).code ?? 'error'}); give a recording folder or file`,
        {
          retry: 'not_retryable',
        },
      );
    }
    for (const f of files.filter((x) => /\.jsonl(\.gz)?$/.test(x)).sort()) {
      const raw = readFileSync(f);
      const text = (f.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
      for (const line of text.split('\n')) {
        if (!line.includes(GRADUATED)) continue;
        const l = JSON.parse(line) as { t?: unknown; f?: { room?: unknown; data?: { token?: { mint?: unknown } } } };
        const mint = l.f?.data?.token?.mint;
        if (l.f?.room !== 'graduated' || typeof mint !== 'string' || typeof l.t !== 'number') continue;
        const before = out.get(mint);
        if (before === undefined || l.t < before) out.set(mint, l.t);
      }
    }
  }
  return out;
}
