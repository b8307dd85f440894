/**
 * Sweep outputs: the JSON shape, a CSV with one row per cell and window, and a self-contained HTML
 * page with the ranked table and, for two parameters, a heatmap of the ranking metric.
 */
import { sweepSilentRoomsHtml, type SilentRooms } from './silent-rooms.js';

export interface SweepCellMetrics {
  readonly netPnlSol: string;
  readonly returnPct: number;
  readonly trades: number;
  readonly winRatePct: number | null;
  readonly profitFactor: number | null;
  readonly expectancySol: string | null;
  readonly maxDrawdownPct: number;
  readonly sharpe: number | null;
  readonly feesSol: string;
  readonly fingerprint: string;
}

export interface SweepOutput {
  readonly kind: 'chainpilot-sweep';
  readonly format: number;
  readonly deployment: string;
  readonly metric: string;
  readonly minTrades: number;
  readonly axes: readonly { readonly path: string; readonly values: readonly (string | number | boolean)[] }[];
  readonly windows: readonly string[];
  /** Run-clock time between in-sample and out-of-sample (walk-forward), else null. */
  readonly split: number | null;
  readonly recordings: readonly string[];
  /** In cell order. */
  readonly cells: readonly {
    readonly index: number;
    readonly params: Readonly<Record<string, string | number | boolean>>;
    readonly windows: Readonly<Record<string, SweepCellMetrics>>;
    /** Joined rooms of kinds the recording never holds (absent when none). */
    readonly silentRooms?: SilentRooms;
  }[];
  /** Cell indexes, best first. */
  readonly ranking: readonly number[];
}

const COLS = ['netPnlSol', 'returnPct', 'trades', 'winRatePct', 'profitFactor', 'expectancySol', 'maxDrawdownPct', 'sharpe', 'feesSol'] as const;

const csvCell = (v: unknown): string => {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- cells hold JSON scalars
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function renderSweepCsv(o: SweepOutput): string {
  const head = ['rank', 'cell', ...o.axes.map((a) => a.path), 'window', ...COLS];
  const rows = [head.map(csvCell).join(',')];
  o.ranking.forEach((idx, rank) => {
    const c = o.cells.find((x) => x.index === idx)!;
    for (const w of o.windows) {
      const m = c.windows[w];
      rows.push([rank + 1, idx, ...o.axes.map((a) => c.params[a.path]), w, ...COLS.map((k) => m?.[k])].map(csvCell).join(','));
    }
  });
  return `${rows.join('\n')}\n`;
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const fmt = (v: unknown): string => {
  if (v === null || v === undefined) return 'n/a';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(2);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- cells hold JSON scalars
  return String(v);
};

export function renderSweepHtml(o: SweepOutput): string {
  const w0 = o.windows[0]!;
  const header = ['rank', ...o.axes.map((a) => a.path), ...o.windows.flatMap((w) => COLS.map((k) => `${w === 'full' ? '' : `${w} `}${k}`))];
  const rows = o.ranking.map((idx, rank) => {
    const c = o.cells.find((x) => x.index === idx)!;
    const cells = [String(rank + 1), ...o.axes.map((a) => fmt(c.params[a.path])), ...o.windows.flatMap((w) => COLS.map((k) => fmt(c.windows[w]?.[k])))];
    return `<tr>${cells.map((x) => `<td>${esc(x)}</td>`).join('')}</tr>`;
  });
  let heat = '';
  if (o.axes.length === 2) {
    const [ax, ay] = o.axes as [SweepOutput['axes'][number], SweepOutput['axes'][number]];
    const val = (x: unknown, y: unknown): number | null => {
      const c = o.cells.find((k) => k.params[ax.path] === x && k.params[ay.path] === y);
      const v = c?.windows[w0]?.[o.metric as keyof SweepCellMetrics];
      return v === null || v === undefined ? null : Number(v);
    };
    const all = ay.values.flatMap((y) => ax.values.map((x) => val(x, y))).filter((v): v is number => v !== null);
    const lo = Math.min(...all);
    const hi = Math.max(...all);
    const color = (v: number | null): string => {
      if (v === null) return '#eee';
      const t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
      return `hsl(${Math.round(t * 120)},70%,${Math.round(80 - t * 30)}%)`;
    };
    heat = `<h2>Heatmap: ${esc(o.metric)} (${esc(w0)})</h2><table class="heat"><tr><th>${esc(ay.path)} \\ ${esc(ax.path)}</th>${ax.values.map((x) => `<th>${esc(fmt(x))}</th>`).join('')}</tr>${ay.values
      .map(
        (y) =>
          `<tr><th>${esc(fmt(y))}</th>${ax.values
            .map((x) => {
              const v = val(x, y);
              return `<td style="background:${color(v)}">${esc(fmt(v))}</td>`;
            })
            .join('')}</tr>`,
      )
      .join('')}</table>`;
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sweep: ${esc(o.deployment)}</title>
<style>body{font:14px system-ui,sans-serif;margin:20px}table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 8px;font-variant-numeric:tabular-nums}th{background:#f3f4f6}.heat td{text-align:center;min-width:60px}</style></head>
<body><h1>Sweep of ${esc(o.deployment)}</h1>
<p>Ranked by ${esc(o.metric)} on the ${esc(w0)} window; cells with fewer than ${o.minTrades} trades rank last.${o.split === null ? '' : ` Walk-forward split at ${new Date(o.split).toISOString()}.`}</p>
${sweepSilentRoomsHtml(o.cells)}${heat}<h2>Cells</h2><table><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>${rows.join('')}</table></body></html>
`;
}
