/** The dashboard's per-position price charts (uPlot): price ÷ entry with the position's exit levels. */
import uPlot from 'uplot';
import { h } from './dom.js';
import { positionChartSize, shortMint } from './format.js';

/** A position's exit levels as the API lists them (exact decimal prices, SOL per whole token). */
export interface PositionExits {
  entryPrice: string;
  takeProfit: { level: number; multiple: string; price: string }[];
  stopLossPrice: string | null;
  trailingStopPrice: string | null;
  timeStopAt: number | null;
}

/** What a chart needs of an open position. */
export interface ChartPosition {
  strategyId: string;
  mint: string;
  costLamports: string;
  valueLamports: string | null;
  exits?: PositionExits | null;
}

const positionSeries = new Map<string, { xs: number[]; ys: number[] }>();
const positionCharts = new Map<string, { chart: uPlot; sig: string }>();

interface Level {
  label: string;
  /** Level price ÷ entry price (display only: the exact prices stay in the API). */
  ratio: number;
  stroke: string;
}

/** A position's exit levels as multiples of its entry: pending take profits, stop loss, armed trailing stop. */
function levelsOf(p: ChartPosition): Level[] {
  const x = p.exits;
  if (!x) return [];
  const entry = Number(x.entryPrice);
  const rel = (price: string): number => (entry > 0 ? Number(price) / entry : NaN);
  const out: Level[] = x.takeProfit.map((t) => ({ label: `TP ${t.level}`, ratio: Number(t.multiple), stroke: '#2e7d32' }));
  if (x.stopLossPrice !== null) out.push({ label: 'stop', ratio: rel(x.stopLossPrice), stroke: '#c62828' });
  if (x.trailingStopPrice !== null) out.push({ label: 'trail', ratio: rel(x.trailingStopPrice), stroke: '#ef6c00' });
  return out.filter((l) => Number.isFinite(l.ratio));
}

/**
 * One small chart per open position: its mark price as a multiple of its entry price (value ÷
 * cost; 1.0 is the entry, drawn dashed), one point per status message while the page is open,
 * with its exit levels as horizontal lines (TP n, stop, trail) and a legend of them. A chart is
 * rebuilt when its set of levels changes (a take profit fired, the trailing stop armed).
 */
export function drawPositionCharts(name: string, host: HTMLElement, positions: readonly ChartPosition[], maxPoints: number): void {
  const open = new Set<string>();
  for (const p of positions) {
    const key = `${name}|${p.strategyId}|${p.mint}`;
    open.add(key);
    if (p.valueLamports === null || BigInt(p.costLamports) <= 0n) continue;
    const s = positionSeries.get(key) ?? { xs: [], ys: [] };
    s.xs.push(Date.now() / 1_000);
    s.ys.push(Number((BigInt(p.valueLamports) * 10_000n) / BigInt(p.costLamports)) / 10_000);
    if (s.xs.length > maxPoints) {
      s.xs.shift();
      s.ys.shift();
    }
    positionSeries.set(key, s);
    const levels = levelsOf(p);
    const sig = levels.map((l) => `${l.label}=${l.ratio.toFixed(4)}`).join(',');
    const data: uPlot.AlignedData = [s.xs, s.ys, s.xs.map(() => 1), ...levels.map((l) => s.xs.map(() => l.ratio))];
    const have = positionCharts.get(key);
    if (have && have.sig === sig) {
      have.chart.setData(data);
      continue;
    }
    if (have) have.chart.destroy();
    host.querySelector(`[data-key="${CSS.escape(key)}"]`)?.remove();
    const legend = h(
      'div',
      { class: 'levels' },
      ...levels.map((l) => h('span', { class: 'level', 'data-level': l.label, style: `color:${l.stroke}` }, `${l.label} ${l.ratio.toFixed(2)}× `)),
    );
    const box = h(
      'div',
      { class: 'position-chart', 'data-key': key },
      h('div', { class: 'label' }, `${shortMint(p.mint)} (${p.strategyId}): price ÷ entry, wall clock`),
      legend,
    );
    host.append(box);
    positionCharts.set(key, {
      sig,
      chart: new uPlot(
        {
          ...positionChartSize(host.clientWidth),
          legend: { show: false },
          series: [
            {},
            { label: 'price ÷ entry', stroke: '#1565c0', width: 2 },
            { label: 'entry', stroke: '#888', dash: [4, 4] },
            ...levels.map((l) => ({ label: l.label, stroke: l.stroke, width: 1, dash: [2, 3] })),
          ],
          axes: [{}, { size: 50 }],
        },
        data,
        box,
      ),
    });
  }
  for (const [key, { chart }] of positionCharts) {
    if (!key.startsWith(`${name}|`) || open.has(key)) continue;
    chart.destroy();
    positionCharts.delete(key);
    positionSeries.delete(key);
    host.querySelector(`[data-key="${CSS.escape(key)}"]`)?.remove();
  }
}
