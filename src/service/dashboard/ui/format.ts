/** Formatting for the page: exact SOL from lamport strings (bigint arithmetic), short mints, ages. */

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** `"1234500000"` → `"1.2345"`; keeps the sign; `null` → `—`. */
export function sol(lamports: string | null | undefined, digits = 4): string {
  if (lamports === null || lamports === undefined || !/^-?\d+$/.test(lamports)) return '—';
  let v = BigInt(lamports);
  const neg = v < 0n;
  if (neg) v = -v;
  const whole = v / LAMPORTS_PER_SOL;
  const frac = (v % LAMPORTS_PER_SOL).toString().padStart(9, '0').slice(0, digits).replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole.toString()}${frac ? `.${frac}` : ''}`;
}

/** Signed SOL for PnL: `+0.12` / `-0.05`. */
export const pnl = (lamports: string | null | undefined): string => {
  const s = sol(lamports);
  return s === '—' || s.startsWith('-') || s === '0' ? s : `+${s}`;
};

/** `So11…1112` */
export const shortMint = (mint: string): string => (mint.length > 10 ? `${mint.slice(0, 4)}…${mint.slice(-4)}` : mint);

/** Lamports as a number of SOL for the chart only (display, never arithmetic). */
export const solNumber = (lamports: string): number => Number(BigInt(lamports)) / 1e9;

export const time = (at: number): string => new Date(at).toISOString().slice(11, 19);

/**
 * Column header of the times the deployment stamps (fills, decisions, pending intents): its run
 * clock, the simulator's clock for a deployment on the embedded simulator, which runs `speed` times
 * faster than the wall clock the position charts use.
 */
export const RUN_TIME = 'run time (UTC)';

/** The size of one position chart in a host `hostWidth` px wide: two side by side when there is room, never the thumbnail it was. */
export function positionChartSize(hostWidth: number): { readonly width: number; readonly height: number } {
  const width = Math.max(360, Math.min(640, Math.floor((hostWidth > 0 ? hostWidth : 760) / 2) - 24));
  return { width, height: 220 };
}

export const ageMs = (ms: number | null): string => (ms === null ? '—' : ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`);

/** Share of a limit as `12%` (null limit: `no cap`). */
export function share(used: string, limit: string | null): string {
  if (limit === null || limit === '0') return 'no cap';
  return `${(Number((BigInt(used) * 10_000n) / BigInt(limit)) / 100).toFixed(1)}%`;
}
