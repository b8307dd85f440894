/**
 * The "live vs backtest" section of report.html (static HTML, no script): the summary of
 * `backtest --verify-against` and the pairs whose outcome or price differ most.
 */
import type { DriftStats, FillPair, LiveVsBacktest, PairSide } from './live-drift-types.js';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const num = (x: number | null, digits = 1): string => (x === null ? 'n/a' : x.toFixed(digits));

/** Pairs listed in the page: outcome differences first, then the largest |drift|. */
const LISTED = 200;

function statsRow(name: string, d: DriftStats | null): string {
  if (!d) return `<tr><th>${name}</th><td colspan="5">no paired fill</td></tr>`;
  return `<tr><th>${name}</th><td>${d.count}</td><td>${num(d.meanBps)}</td><td>${num(d.medianAbsBps)}</td><td>${num(d.p90AbsBps)}</td><td>${num(d.maxAbsBps)}</td></tr>`;
}

function cell(s: PairSide | null): string {
  if (!s) return '<td>absent</td><td></td>';
  const what = s.outcome === 'filled' ? 'filled' : `${s.outcome} ${s.code ?? ''}`;
  return `<td>${esc(what)}</td><td>${s.latencyMs ?? ''}</td>`;
}

function pairRow(p: FillPair): string {
  return `<tr><td>${new Date((p.live ?? p.backtest)!.decidedAt).toISOString()}</td><td>${esc(p.strategyId)}</td><td>${p.side}</td><td>${esc(p.mint)}</td><td>${p.pairedBy}</td>${cell(p.live)}${cell(p.backtest)}<td>${num(p.priceDriftBps)}</td></tr>`;
}

/** The section, or an empty string without a comparison. */
export function renderLiveDrift(v: LiveVsBacktest | undefined): string {
  if (!v) return '';
  const s = v.summary;
  const codes = (xs: readonly { code: string; count: number }[]): string => (xs.length ? xs.map((c) => `${esc(c.code)} ${c.count}`).join(', ') : 'none');
  const differs = (p: FillPair): boolean => (p.live?.outcome ?? 'absent') !== (p.backtest?.outcome ?? 'absent');
  const listed = [...v.pairs]
    .sort((a, b) => Number(differs(b)) - Number(differs(a)) || Math.abs(b.priceDriftBps ?? 0) - Math.abs(a.priceDriftBps ?? 0))
    .slice(0, LISTED);
  return `<h2 id="live-vs-backtest">Live vs backtest</h2>
<p class="note">The run given to --verify-against, paired intent by intent with this backtest (by drawn id, else by decision, else by occurrence). Price drift is live / backtest − 1 in bps, rent left out.</p>
<table id="drift-summary"><tbody>
<tr><th>live fills paired</th><td>${s.pairedFills} of ${s.liveFills} (${num(s.pairedPct)} %); backtest fills ${s.backtestFills}</td></tr>
<tr><th>intents paired</th><td>by id ${s.pairedBy.id}, by decision ${s.pairedBy.decision}, by occurrence ${s.pairedBy.occurrence} (of ${s.liveIntents})</td></tr>
<tr><th>filled live, not in the backtest</th><td>${codes(s.filledLiveOnly)}</td></tr>
<tr><th>filled in the backtest, not live</th><td>${codes(s.filledBacktestOnly)}</td></tr>
<tr><th>median latency decision → fill</th><td>live ${s.latencyMs.liveMedian ?? 'n/a'} ms, backtest ${s.latencyMs.backtestMedian ?? 'n/a'} ms</td></tr>
<tr><th>fees / rent of paired fills (lamports)</th><td>live ${s.pairedFeesLamports.live} / ${s.pairedRentLamports.live}; backtest ${s.pairedFeesLamports.backtest} / ${s.pairedRentLamports.backtest}</td></tr>
</tbody></table>
<table id="drift-stats"><thead><tr><th></th><th>fills</th><th>mean bps</th><th>median |bps|</th><th>p90 |bps|</th><th>max |bps|</th></tr></thead><tbody>
${statsRow('buys', s.drift.buy)}${statsRow('sells', s.drift.sell)}${statsRow('all', s.drift.all)}
</tbody></table>
<table id="drift-pairs"><thead><tr><th>decided</th><th>strategy</th><th>side</th><th>token</th><th>paired by</th><th>live</th><th>live ms</th><th>backtest</th><th>backtest ms</th><th>drift bps</th></tr></thead><tbody>
${listed.map(pairRow).join('\n')}
</tbody></table>
<p class="note">${listed.length} of ${v.pairs.length + v.omittedPairs} pairs listed (outcome differences first, then the largest drift); report.json holds ${v.pairs.length}.</p>
`;
}
