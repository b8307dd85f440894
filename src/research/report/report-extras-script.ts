/**
 * The report page's breakdowns (plain browser JavaScript, no template literals inside): the page
 * script calls `renderExtras(R)` with the report JSON once it has read it, which fills `#extras` with the short-run metrics, exits by rule,
 * per-token and per-period tables, durations, streaks and the exposure chart (report-extras.ts).
 * It uses the page's own helpers (el, the sortable table, num, dur). Reports without `extras`
 * (older report.json) show a note instead.
 */
const SOURCE = String.raw`
function renderExtras(R, el, table, num, dur) {
  'use strict';
  var root = document.getElementById('extras');
  // A titled box holding an empty table with this id, for the page's sortable table(id, cols, rows).
  function box(title, id, parent) {
    var b = el('div'); b.appendChild(el('h2', null, title)); b.appendChild(el('table', { id: id }));
    (parent || root).appendChild(b); return b;
  }
  var X = R.extras;
  if (!X) { root.appendChild(el('p', null, 'No breakdowns in this older report.json.')); return; }
  var grid = el('div', { 'class': 'grid' }); root.appendChild(grid);
  var h = X.hourly;
  function pct(v) { return num(v, 3) + ' %'; }
  box('Short-run metrics (per hour)', 'hourly', grid);
  table('hourly', [['metric', 0], ['value', 1]], [
    ['Hours', h.hours], ['Mean', pct(h.meanPct)], ['Median', pct(h.medianPct)], ['5th / 95th percentile', pct(h.p5Pct) + ' / ' + pct(h.p95Pct)],
    ['Worst / best', pct(h.worstPct) + ' / ' + pct(h.bestPct)], ['Positive hours', num(h.positivePct, 1) + ' %'], ['Sharpe per hour (not annualised)', num(h.hourlySharpe, 3)]
  ]);
  function drow(n, s) { return { n: n, count: s.count, mean: s.meanMs, median: s.medianMs, max: s.maxMs }; }
  box('Durations and streaks', 'durations', grid).appendChild(el('table', { id: 'streaks' }));
  table('durations', [['', 'n'], ['count', 'count'], ['mean', function (r) { return dur(r.mean); }, 'mean'], ['median', function (r) { return dur(r.median); }, 'median'],
    ['longest', function (r) { return dur(r.max); }, 'max']], [drow('Winners', X.durations.winners), drow('Losers', X.durations.losers)]);
  table('streaks', [['longest win streak', 'longestWin'], ['longest loss streak', 'longestLoss']], [X.streaks]);
  var G = [['trades', 'trades'], ['wins', 'wins'], ['PnL SOL', 'pnlSol']];
  box('Exits by rule', 'by-exit-rule', grid);
  table('by-exit-rule', [['rule', 'key']].concat(G), X.byExitRule.slice());
  var pg = el('div', { 'class': 'grid' });
  root.appendChild(el('h2', null, 'By day, week and month (closed trades, UTC)')); root.appendChild(pg);
  ['day', 'week', 'month'].forEach(function (p) { box(p, 'by-' + p, pg); table('by-' + p, [[p, 'key']].concat(G), X.byPeriod[p].slice()); });
  box('Per token', 'by-token');
  table('by-token', [['token', 'key']].concat(G, [['fees SOL', 'feesSol'], ['time held', function (r) { return dur(r.holdMs); }, 'holdMs']]), X.byToken.slice());
  root.appendChild(el('h2', null, 'Exposure over time'));
  var c = el('div', { id: 'exposure', 'class': 'chart' }); root.appendChild(c);
  var E = X.exposure;
  if (E.length > 1) {
    new uPlot({ title: 'Open trades and SOL at cost', width: Math.max(600, Math.min(1100, document.body.clientWidth - 40)), height: 200, scales: { x: { time: true }, sol: {} },
      axes: [{}, { label: 'trades' }, { scale: 'sol', side: 1, label: 'SOL', grid: { show: false } }],
      series: [{}, { label: 'open trades', stroke: '#7c3aed', width: 1.5 }, { label: 'SOL at cost', scale: 'sol', stroke: '#ea580c', width: 1 }] },
      [0, 1, 2].map(function (k) { return E.map(function (p) { return k ? p[k] : p[0] / 1000; }); }), c);
  } else c.appendChild(el('p', null, 'Too few samples to draw.'));
}
`;

/** The script as the page embeds it: without indentation and comment lines (it has no template literals or multi-line strings). */
export const REPORT_EXTRAS_SCRIPT = SOURCE.split('\n')
  .map((l) => l.trim())
  .filter((l) => l.length > 0 && !l.startsWith('//'))
  .join('\n');
