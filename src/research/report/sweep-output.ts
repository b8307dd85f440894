/**
 * Sweep outputs: the JSON shape, a CSV with one row per cell and window, and a self-contained HTML
 * page with the ranked table and, for two parameters, a heatmap of the ranking metric.
 */
import type { WindowMetrics } from '../../engine/strategy/param-space.js';
import { sweepSilentRoomsHtml, type SilentRooms } from './silent-rooms.js';

/** One window of one cell: what the objective sees (engine/strategy/param-space.ts) and the backtest's fingerprint. */
export interface SweepCellMetrics extends WindowMetrics {
  readonly fingerprint: string;
}

/** One fold's selection: the best cell on its in-sample window, and its out-of-sample result. */
export interface SweepFoldResult {
  readonly n: number;
  readonly inSample: string;
  readonly outOfSample: string | null;
  readonly selected: number | null;
  readonly params: Readonly<Record<string, string | number | boolean>> | null;
  readonly inSampleScore: number | null;
  /** The selected cell on the out-of-sample window (null without walk-forward or without a selection). */
  readonly result: SweepCellMetrics | null;
}

export interface SweepOutput {
  readonly kind: 'chainpilot-sweep';
  readonly format: number;
  readonly deployment: string;
  readonly search: { readonly method: string; readonly budget: number | null; readonly seed: number };
  readonly objective: { readonly name: string; readonly minTrades: number };
  readonly walkForward: { readonly folds: number; readonly inSamplePct: number; readonly mode: string } | null;
  readonly axes: readonly { readonly path: string; readonly values: readonly (string | number | boolean)[] }[];
  /** Every window some cell ran on, in the order first run (run-clock ms, inclusive). */
  readonly windows: readonly { readonly name: string; readonly fromMs: number | null; readonly toMs: number | null }[];
  readonly folds: readonly SweepFoldResult[];
  /**
   * The headline: the selected cells' out-of-sample results summed over the folds (each fold from a
   * fresh portfolio). Without walk-forward, the best cell's whole-window result, which is in-sample.
   */
  readonly headline: {
    readonly outOfSample: boolean;
    readonly netPnlSol: string;
    readonly trades: number;
    readonly feesSol: string;
    readonly foldsPositive: number;
  };
  readonly recordings: readonly string[];
  /** In cell order; a cell holds the windows it ran on. */
  readonly cells: readonly {
    readonly index: number;
    readonly params: Readonly<Record<string, string | number | boolean>>;
    readonly windows: Readonly<Record<string, SweepCellMetrics>>;
    /** Joined rooms of kinds the recording never holds (absent when none). */
    readonly silentRooms?: SilentRooms;
    /** The objective's value on each of those windows (null: n/a). */
    readonly scores: Readonly<Record<string, number | null>>;
  }[];
  /** The window the ranking is by: the last fold's in-sample window, or `full`. */
  readonly rankWindow: string;
  /** Cell indexes, best first on `rankWindow` (cells that never ran on it last, in cell order). */
  readonly ranking: readonly number[];
}

const COLS = [
  'netPnlSol',
  'returnPct',
  'trades',
  'winRatePct',
  'profitFactor',
  'expectancySol',
  'maxDrawdownPct',
  'sharpe',
  'hourlySharpe',
  'feesSol',
] as const;

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
    for (const { name } of o.windows) {
      const m = c.windows[name];
      if (m) rows.push([rank + 1, idx, ...o.axes.map((a) => c.params[a.path]), name, ...COLS.map((k) => m[k])].map(csvCell).join(','));
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

const SHOWN = ['trades', 'netPnlSol', 'profitFactor', 'hourlySharpe', 'maxDrawdownPct'] as const;

/** A cell's sort key: the value itself ('' for n/a). */
const sortValue = (v: unknown): string =>
  v === null || v === undefined ? '' : typeof v === 'number' || typeof v === 'boolean' ? String(v) : typeof v === 'string' ? v : JSON.stringify(v);

/**
 * The sweep page's table sorting (plain browser JavaScript): a header click sorts the rows by that
 * column's `data-v`, numbers as numbers, text by locale, n/a last in either direction; a second click
 * reverses. `sweepOrder` is the comparator (test/research/sweep-sort.test.ts runs it in node).
 */
export const SWEEP_SORT_SCRIPT = String.raw`
function sweepOrder(a, b, dir) {
  if (a === '' || b === '') return a === b ? 0 : a === '' ? 1 : -1;
  var na = Number(a), nb = Number(b);
  var cmp = !isNaN(na) && !isNaN(nb) ? na - nb : String(a).localeCompare(String(b));
  return cmp * dir;
}
(function () {
  if (typeof document === 'undefined') return;
  var t = document.getElementById('cells');
  var body = t.tBodies[0], state = { col: -1, dir: 1 };
  Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, i) {
    th.addEventListener('click', function () {
      state.dir = state.col === i ? -state.dir : 1;
      state.col = i;
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (x, y) { return sweepOrder(x.cells[i].getAttribute('data-v'), y.cells[i].getAttribute('data-v'), state.dir); });
      rows.forEach(function (r) { body.appendChild(r); });
      t.setAttribute('data-sorted', i + (state.dir > 0 ? ' asc' : ' desc'));
    });
  });
  document.body.setAttribute('data-rendered', 'true');
})();
`;

function headlineHtml(o: SweepOutput): string {
  const h = o.headline;
  const what = h.outOfSample
    ? `Out of sample (${o.folds.length} fold${o.folds.length === 1 ? '' : 's'}, ${o.walkForward?.mode ?? ''} walk-forward, each fold's cell selected on its in-sample window only)`
    : 'In sample only: no walk-forward, so this is the best cell on the data it was selected on (add --folds)';
  const folds = o.folds
    .map(
      (f) =>
        `<tr><td>${f.n}</td><td>${esc(f.selected === null ? 'none' : String(f.selected))}</td><td>${esc(f.params ? JSON.stringify(f.params) : '')}</td><td>${esc(fmt(f.inSampleScore))}</td>${SHOWN.map((k) => `<td>${esc(fmt(f.result?.[k]))}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<h2>Headline</h2><p id="headline">${esc(what)}: <b>${esc(h.netPnlSol)} SOL</b> over ${h.trades} trades, fees ${esc(h.feesSol)} SOL; ${h.foldsPositive} of ${o.folds.length} fold(s) positive.</p>
<table id="folds"><tr><th>fold</th><th>selected cell</th><th>params</th><th>in-sample ${esc(o.objective.name)}</th>${SHOWN.map((k) => `<th>${h.outOfSample ? 'out-of-sample ' : ''}${k}</th>`).join('')}</tr>${folds}</table>`;
}

export function renderSweepHtml(o: SweepOutput): string {
  const w0 = o.rankWindow;
  const main = o.windows.map((w) => w.name).filter((w) => !w.includes('@'));
  const header = ['rank', 'cell', ...o.axes.map((a) => a.path), ...main.flatMap((w) => [`${w} ${o.objective.name}`, ...SHOWN.map((k) => `${w} ${k}`)])];
  const rows = o.ranking.map((idx, rank) => {
    const c = o.cells.find((x) => x.index === idx)!;
    // Each cell shows fmt(v) and sorts by v itself (data-v: the full number, '' for n/a).
    const values: unknown[] = [
      rank + 1,
      idx,
      ...o.axes.map((a) => c.params[a.path]),
      ...main.flatMap((w) => [c.scores[w], ...SHOWN.map((k) => c.windows[w]?.[k])]),
    ];
    return `<tr>${values.map((v) => `<td data-v="${esc(sortValue(v))}">${esc(fmt(v))}</td>`).join('')}</tr>`;
  });
  let heat = '';
  if (o.axes.length === 2) {
    const [ax, ay] = o.axes as [SweepOutput['axes'][number], SweepOutput['axes'][number]];
    const val = (x: unknown, y: unknown): number | null => {
      const c = o.cells.find((k) => k.params[ax.path] === x && k.params[ay.path] === y);
      return c?.scores[w0] ?? null;
    };
    const all = ay.values.flatMap((y) => ax.values.map((x) => val(x, y))).filter((v): v is number => v !== null);
    const lo = Math.min(...all);
    const hi = Math.max(...all);
    const color = (v: number | null): string => {
      if (v === null) return '#eee';
      const t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
      return `hsl(${Math.round(t * 120)},70%,${Math.round(80 - t * 30)}%)`;
    };
    heat = `<h2>Heatmap: ${esc(o.objective.name)} (${esc(w0)})</h2><table class="heat"><tr><th>${esc(ay.path)} \\ ${esc(ax.path)}</th>${ax.values.map((x) => `<th>${esc(fmt(x))}</th>`).join('')}</tr>${ay.values
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
  const search = `${o.search.method}${o.search.budget === null ? '' : `, budget ${o.search.budget}`}, seed ${o.search.seed}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sweep: ${esc(o.deployment)}</title>
<style>body{font:14px system-ui,sans-serif;margin:20px}table{border-collapse:collapse;margin:8px 0;max-width:100%}th,td{border:1px solid #ddd;padding:3px 8px;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}th{background:#f3f4f6}.heat td{text-align:center;min-width:60px}.wide{overflow-x:auto;max-width:100%}#cells thead th{cursor:pointer;user-select:none}</style></head>
<body><h1>Sweep of ${esc(o.deployment)}</h1>
<p>Search: ${esc(search)}. Objective ${esc(o.objective.name)}, higher is better; cells with fewer than ${o.objective.minTrades} trades rank last. Table ranked on the ${esc(w0)} window.</p>
${headlineHtml(o)}${sweepSilentRoomsHtml(o.cells)}<div class="wide">${heat}</div><h2>Cells</h2><p>Click a column to sort (n/a last).</p><div class="wide"><table id="cells"><thead><tr>${header.map((h) => `<th title="sort">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>
<script>${SWEEP_SORT_SCRIPT}</script></body></html>
`;
}
