/**
 * The report page's own script (plain browser JavaScript, no template literals inside): reads the
 * embedded report JSON, draws the charts with the bundled uPlot and fills the sortable tables.
 */
export const REPORT_PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  // The report JSON is embedded gzipped and base64-encoded (a day of trades stays small); the browser inflates it.
  var b64 = document.getElementById('report-data').textContent.trim();
  var bin = atob(b64), bytes = new Uint8Array(bin.length);
  for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text().then(function (text) {
    render(JSON.parse(text));
  }).catch(function (e) {
    document.body.setAttribute('data-render-error', String(e));
    console.error('report: cannot read the embedded data: ' + e);
  });
})();

function render(R) {
  'use strict';
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function iso(ms) { return new Date(ms).toISOString().replace('.000Z', 'Z'); }
  function dur(ms) {
    if (ms === null || ms === undefined) return 'n/a';
    var s = Math.round(ms / 1000);
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    return (d ? d + 'd ' : '') + (h ? h + 'h ' : '') + (m ? m + 'm ' : '') + (s % 60) + 's';
  }
  function num(v, digits) { return v === null || v === undefined ? 'n/a' : Number(v).toFixed(digits === undefined ? 2 : digits); }
  function short(mint) { return mint.length > 12 ? mint.slice(0, 5) + '…' + mint.slice(-4) : mint; }

  // Run info
  var info = document.getElementById('run');
  var rows = [
    ['Deployment', R.run.deployment], ['Strategies', R.run.strategies.map(function (s) { return s.id; }).join(', ')],
    ['Window', iso(R.run.from) + ' → ' + iso(R.run.to)], ['Recordings', R.run.recordings.map(function (f) { return f.file; }).join(', ')],
    ['chainpilot', R.run.chainpilot], ['Seed', R.run.seed], ['Lines replayed', R.run.lines],
    ['ctx.data', R.run.dataLookups.exact + ' answered, ' + R.run.dataLookups.misses + ' misses (' + R.run.dataLookups.fallbackAnswers + ' by fallback)'],
    ['Fingerprint', R.fingerprint]
  ];
  rows.forEach(function (r) { var tr = el('tr'); tr.appendChild(el('th', null, r[0])); tr.appendChild(el('td', r[0] === 'Fingerprint' ? { id: 'fingerprint' } : null, r[1])); info.appendChild(tr); });

  // Metrics
  var m = R.metrics;
  var metrics = [
    ['Net PnL (SOL)', m.netPnlSol], ['Trade PnL (SOL)', m.tradePnlSol], ['Failed-transaction fees outside trades (SOL)', m.failedFeesSol], ['Return', num(m.returnPct) + ' %'], ['Trades (closed)', m.trades], ['Open at end', m.openTrades],
    ['Win rate', m.winRatePct === null ? 'n/a' : num(m.winRatePct) + ' %'], ['Profit factor', num(m.profitFactor)],
    ['Expectancy (SOL)', m.expectancySol === null ? 'n/a' : m.expectancySol], ['Average win (SOL)', m.avgWinSol === null ? 'n/a' : m.avgWinSol],
    ['Average loss (SOL)', m.avgLossSol === null ? 'n/a' : m.avgLossSol], ['Best trade (SOL)', m.bestTradeSol === null ? 'n/a' : m.bestTradeSol],
    ['Worst trade (SOL)', m.worstTradeSol === null ? 'n/a' : m.worstTradeSol], ['Average hold', dur(m.avgHoldMs)],
    ['Max drawdown', m.maxDrawdownSol + ' SOL (' + num(m.maxDrawdownPct) + ' %)'], ['Longest drawdown', dur(m.longestDrawdownMs)],
    ['Exposure time', num(m.exposurePct) + ' %'], ['Fees (SOL)', m.feesSol], ['Slippage vs observed price (SOL)', m.slippageSol],
    ['Sharpe (annualised)', m.sharpe === null ? 'n/a' : num(m.sharpe)], ['Sortino (annualised)', m.sortino === null ? 'n/a' : num(m.sortino)],
    ['Intents / fills / denials', m.intents + ' / ' + m.fills + ' / ' + m.denials]
  ];
  var mt = document.getElementById('metrics');
  metrics.forEach(function (r) { var tr = el('tr'); tr.appendChild(el('th', null, r[0])); tr.appendChild(el('td', null, r[1])); mt.appendChild(tr); });
  if (m.ratioNote) document.getElementById('ratio-note').textContent = 'Sharpe / Sortino: ' + m.ratioNote;

  // Charts
  var width = Math.max(600, Math.min(1100, document.body.clientWidth - 40));
  var sync = uPlot.sync('time');
  var xs = R.equity.map(function (p) { return p[0] / 1000; });
  new uPlot({ title: 'Equity (SOL)', width: width, height: 260, cursor: { sync: { key: sync.key } }, scales: { x: { time: true } },
    series: [{}, { label: 'equity', stroke: '#2563eb', width: 2 }] }, [xs, R.equity.map(function (p) { return p[1]; })], document.getElementById('equity'));
  new uPlot({ title: 'Drawdown (%)', width: width, height: 160, cursor: { sync: { key: sync.key } }, scales: { x: { time: true } },
    series: [{}, { label: 'drawdown', stroke: '#dc2626', fill: 'rgba(220,38,38,0.15)', width: 1 }] }, [xs, R.equity.map(function (p) { return p[2]; })], document.getElementById('drawdown'));

  var pc = document.getElementById('prices');
  if (R.prices.length === 0) pc.appendChild(el('p', null, 'No traded token.'));
  R.prices.forEach(function (tok) {
    var times = {};
    tok.points.forEach(function (p) { times[p[0]] = true; });
    tok.markers.forEach(function (p) { times[p.at] = true; });
    var x = Object.keys(times).map(Number).sort(function (a, b) { return a - b; });
    var idx = {};
    x.forEach(function (t, i) { idx[t] = i; });
    var price = x.map(function () { return null; }), buys = price.slice(), sells = price.slice();
    tok.points.forEach(function (p) { price[idx[p[0]]] = p[1]; });
    tok.markers.forEach(function (p) { (p.side === 'buy' ? buys : sells)[idx[p.at]] = p.price; });
    var box = el('div', { 'class': 'chart', 'data-mint': tok.mint });
    pc.appendChild(box);
    new uPlot({ title: 'Price of ' + short(tok.mint) + ' (SOL per token)', width: width, height: 220, scales: { x: { time: true } },
      axes: [{}, { size: 80, values: function (u, vals) { return vals.map(function (v) { return v === 0 ? '0' : Number(v).toPrecision(3); }); } }],
      series: [{}, { label: 'price', stroke: '#0f766e', width: 1.5, spanGaps: true },
        { label: 'buy', stroke: '#16a34a', width: 0, paths: function () { return null; }, points: { show: true, size: 9, fill: '#16a34a' } },
        { label: 'sell', stroke: '#dc2626', width: 0, paths: function () { return null; }, points: { show: true, size: 9, fill: '#dc2626' } }] },
      [x.map(function (t) { return t / 1000; }), price, buys, sells], box);
  });

  // Tables
  function table(id, cols, data) {
    var t = document.getElementById(id);
    var head = el('tr');
    var state = { col: -1, dir: 1 };
    cols.forEach(function (c, i) {
      var th = el('th', { 'data-col': String(i), title: 'sort' }, c[0]);
      th.addEventListener('click', function () {
        state.dir = state.col === i ? -state.dir : 1;
        state.col = i;
        var key = c[2] || c[1];
        data.sort(function (a, b) {
          var va = typeof key === 'function' ? key(a) : a[key], vb = typeof key === 'function' ? key(b) : b[key];
          var na = Number(va), nb = Number(vb);
          var cmp = (!isNaN(na) && !isNaN(nb) && va !== null && vb !== null) ? na - nb : String(va).localeCompare(String(vb));
          return cmp * state.dir;
        });
        body();
      });
      head.appendChild(th);
    });
    var thead = el('thead'); thead.appendChild(head); t.appendChild(thead);
    var tbody = el('tbody'); t.appendChild(tbody);
    function body() {
      tbody.textContent = '';
      data.forEach(function (r) {
        var tr = el('tr');
        cols.forEach(function (c) { tr.appendChild(el('td', null, typeof c[1] === 'function' ? c[1](r) : r[c[1]])); });
        tbody.appendChild(tr);
      });
    }
    body();
  }
  table('trades', [['#', 'id'], ['strategy', 'strategyId'], ['token', 'mint'], ['opened', function (r) { return iso(r.openedAt); }, 'openedAt'],
    ['hold', function (r) { return dur(r.holdMs); }, 'holdMs'], ['buy SOL', 'buySol'], ['sell SOL', 'sellSol'], ['fees SOL', 'feesSol'],
    ['PnL SOL', 'pnlSol'], ['return %', function (r) { return num(r.returnPct); }, 'returnPct'], ['exit', 'exitReason'], ['status', 'status']], R.trades.slice());
  table('by-strategy', [['strategy', 'strategyId'], ['trades', 'trades'], ['wins', 'wins'], ['win rate %', function (r) { return num(r.winRatePct); }, 'winRatePct'], ['PnL SOL', 'pnlSol'], ['fees SOL', 'feesSol'], ['failed-tx fees SOL', 'failedFeesSol']], R.byStrategy.slice());
  table('by-exit', [['exit rule', 'reason'], ['trades', 'trades'], ['PnL SOL', 'pnlSol']], R.byExitReason.slice());
  table('denials', [['code', 'code'], ['count', 'count']], R.denials.slice());
  if (typeof renderExtras === 'function') renderExtras(R, el, table, num, dur); // report-extras-script.ts
  document.body.setAttribute('data-rendered', 'true');
}
`;
