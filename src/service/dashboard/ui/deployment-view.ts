/**
 * One deployment's section: its header (mode, state, cause, switches), the force-buy form, the
 * equity chart and the facts beside it (PnL, risk, feed), open positions with their close buttons
 * and price charts, pending intents with their cancel buttons, recent fills and decisions, and the
 * effective configuration.
 */
import { act, cancelButton, closeButton, forceEntry } from './controls.js';
import { h, table } from './dom.js';
import { drawEquityChart } from './equity-chart.js';
import { ageMs, pnl, RUN_TIME, share, shortMint, sol, time } from './format.js';
import { decisionRows } from './history-tables.js';
import { drawPositionCharts } from './position-charts.js';
import { $, api } from './session.js';
import { MAX_POINTS } from './store.js';
import type { Detail } from './types.js';

/** A state as a coloured badge. */
export const badge = (state: string): HTMLElement => h('span', { class: `state state-${state}` }, state);

/** Removes the sections of deployments that are gone. */
export function removeGoneDeployments(present: ReadonlyMap<string, unknown>): void {
  for (const el of document.querySelectorAll<HTMLElement>('section.deployment')) if (!present.has(el.dataset['name'] ?? '')) el.remove();
}

/** Draws deployment `name` from `d` into its section (made on first sight). */
export function drawDeployment(name: string, d: Detail): void {
  const el = card(name);
  const part = (selector: string): HTMLElement => el.querySelector(selector) as HTMLElement;
  part('.mode').textContent = d.mode;
  part('.badge').replaceChildren(badge(d.state));
  part('.cause').textContent = d.cause ? `${d.cause.code}: ${d.cause.message}` : '';
  part('.facts').replaceChildren(facts(d));
  part('.positions').replaceChildren(
    table(
      'positions',
      ['strategy', 'mint', 'cost (SOL)', 'value (SOL)', 'unrealised', 'realised', ''],
      d.positions.map((p) => ({
        key: `${p.strategyId}:${p.mint}`,
        cells: [
          p.strategyId,
          shortMint(p.mint),
          sol(p.costLamports),
          sol(p.valueLamports),
          pnl(p.unrealisedLamports),
          pnl(p.realisedLamports),
          h('span', { class: 'row-actions' }, closeButton(name, p, 5_000, 'Sell half'), closeButton(name, p, 10_000, 'Close')),
        ],
      })),
      'No open positions.',
    ),
  );
  part('.pending').replaceChildren(
    table(
      'pending',
      [`since (${RUN_TIME})`, 'strategy', 'side', 'mint', 'amount in', 'journal state', ''],
      d.pending.map((p) => ({
        key: p.id,
        cells: [
          time(p.createdAt),
          p.strategyId,
          p.side,
          shortMint(p.mint),
          p.side === 'buy' ? `${sol(p.amountIn)} SOL` : p.amountIn,
          p.state,
          cancelButton(name, p),
        ],
      })),
      'No pending intents.',
    ),
  );
  part('.fills').replaceChildren(table('fills', [RUN_TIME, 'strategy', 'side', 'mint', 'SOL', 'tokens (raw)'], decisionRows(name, ['fill']), 'No fills yet.'));
  part('.decisions').replaceChildren(
    table(
      'decisions',
      [RUN_TIME, 'kind', 'strategy', 'side', 'mint', 'amount', 'code', 'reason'],
      decisionRows(name, ['intent', 'denied', 'unfilled', 'manual']),
      'No decisions yet.',
    ),
  );
  drawEquityChart(name, part('.chart'));
  drawPositionCharts(name, part('.position-charts'), d.positions, MAX_POINTS);
}

/** The section of deployment `name`, made (with its controls wired and its configuration asked for) on first call. */
function card(name: string): HTMLElement {
  let el = document.querySelector<HTMLElement>(`section.deployment[data-name="${CSS.escape(name)}"]`);
  if (el) return el;
  el = h(
    'section',
    { class: 'deployment', 'data-name': name },
    h(
      'header',
      {},
      h('h2', {}, name),
      h('span', { class: 'mode' }),
      h('span', { class: 'badge' }),
      h('span', { class: 'cause' }),
      h(
        'span',
        { class: 'actions' },
        h('button', { type: 'button', 'data-action': 'pause' }, 'Pause'),
        h('button', { type: 'button', 'data-action': 'resume' }, 'Resume'),
        h('button', { type: 'button', 'data-action': 'kill', class: 'danger' }, 'Kill'),
        h('button', { type: 'button', 'data-action': 'unkill' }, 'Unkill'),
      ),
    ),
    h(
      'form',
      { class: 'enter' },
      h('input', { name: 'mint', placeholder: 'token mint', required: 'required', size: '44' }),
      h('input', { name: 'sol', placeholder: 'SOL', required: 'required', size: '6', inputmode: 'decimal' }),
      h('input', { name: 'strategy', placeholder: 'strategy (if several)', size: '16' }),
      h('button', { type: 'submit' }, 'Force buy'),
    ),
    h(
      'div',
      { class: 'grid' },
      h('div', { class: 'chart' }, h('div', { class: 'clock-note' }, 'equity (SOL) over run time (UTC)')),
      h('div', { class: 'facts' }),
    ),
    h('h3', {}, 'Open positions'),
    h('div', { class: 'positions' }),
    h('p', { class: 'clock-note position-clock' }, 'Price charts: price ÷ entry over wall-clock time, while this page is open.'),
    h('div', { class: 'position-charts' }),
    h('h3', {}, 'Pending intents'),
    h('div', { class: 'pending' }),
    h('h3', {}, 'Recent fills'),
    h('div', { class: 'fills' }),
    h('h3', {}, 'Recent decisions'),
    h('div', { class: 'decisions' }),
    h('details', { class: 'config' }, h('summary', {}, 'Effective configuration (secrets redacted)'), h('pre', {}, 'loading...')),
  );
  const pre = el.querySelector('details.config pre') as HTMLElement;
  api(`/api/deployments/${encodeURIComponent(name)}/config`).then(
    (c) => (pre.textContent = (c as { yaml: string }).yaml),
    (e: unknown) => (pre.textContent = `not available: ${(e as Error).message}`),
  );
  for (const b of el.querySelectorAll<HTMLButtonElement>('button[data-action]')) b.addEventListener('click', () => void act(name, b.dataset['action'] ?? ''));
  const form = el.querySelector('form.enter') as HTMLFormElement;
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const field = (n: string): string => (form.elements.namedItem(n) as HTMLInputElement | null)?.value.trim() ?? '';
    void forceEntry(name, field('mint'), field('sol'), field('strategy'));
  });
  $('deployments').append(el);
  return el;
}

/** Equity and PnL, the risk day and exposure against their limits, and the feed's health. */
function facts(d: Detail): HTMLElement {
  const f = d.feed;
  const r = d.risk;
  const row = (k: string, v: string, cls = ''): HTMLElement => h('div', { class: `fact ${cls}` }, h('span', {}, k), h('b', {}, v));
  return h(
    'div',
    {},
    row('equity', `${sol(d.equityLamports)} SOL`),
    row('realised PnL', `${pnl(d.summary?.realisedLamports)} SOL`),
    row('unrealised PnL', `${pnl(d.summary?.unrealisedLamports)} SOL`),
    h('h4', {}, 'Risk'),
    r
      ? row(
          'daily loss',
          `${sol(r.dailyLossLamports)} / ${r.dailyLossLimitLamports ? sol(r.dailyLossLimitLamports) : '∞'} SOL (${share(r.dailyLossLamports, r.dailyLossLimitLamports)})`,
          r.dailyHalted ? 'bad' : '',
        )
      : row('risk', '—'),
    r
      ? row(
          'exposure',
          `${sol(r.exposureLamports)} / ${r.maxExposureLamports ? sol(r.maxExposureLamports) : '∞'} SOL (${share(r.exposureLamports, r.maxExposureLamports)})`,
        )
      : '',
    r?.killed ? row('kill switch', r.killReason ?? 'on', 'bad') : '',
    h('h4', {}, 'Feed'),
    f ? row('connection', `${f.state}${f.connected ? '' : ' (down)'}`, f.connected ? '' : 'bad') : row('feed', '—'),
    f ? row('frames/s', f.framesPerSec.toFixed(1)) : '',
    f ? row('last frame', ageMs(f.lastFrameAgeMs)) : '',
    f ? row('gaps / reconnects', `${f.gaps} / ${f.reconnects}`) : '',
    f ? row('rejected frames', String(f.rejected), f.rejected > 0 ? 'bad' : '') : '',
  );
}
