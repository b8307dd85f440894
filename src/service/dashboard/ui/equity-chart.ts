/** Each deployment's equity chart (uPlot), drawn from the store's equity series. */
import uPlot from 'uplot';
import { store } from './store.js';

const charts = new Map<string, uPlot>();

/** Draws `name`'s equity into `host`: the chart is made once and given new data after that. */
export function drawEquityChart(name: string, host: HTMLElement): void {
  const series = store.equity.get(name) ?? { xs: [], ys: [] };
  const data: uPlot.AlignedData = [series.xs, series.ys];
  const chart = charts.get(name);
  if (chart) {
    chart.setData(data);
    return;
  }
  charts.set(
    name,
    new uPlot(
      {
        width: Math.max(320, Math.min(560, host.clientWidth || 520)),
        height: 200,
        legend: { show: false },
        series: [{}, { label: 'equity (SOL)', stroke: '#2f7d32', width: 2 }],
        axes: [{}, { size: 70 }],
      },
      data,
      host,
    ),
  );
}

/** Destroys every equity chart (a snapshot rebuilds the page). */
export function resetEquityCharts(): void {
  for (const c of charts.values()) c.destroy();
  charts.clear();
}
