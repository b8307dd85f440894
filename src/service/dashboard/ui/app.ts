/**
 * The dashboard page: signs in with the API token (kept in sessionStorage for this browser
 * session only), follows the daemon's Server-Sent Events stream (a single-use ticket per
 * connection; on a drop it reconnects with the last event id and gets exactly what it missed; after
 * a daemon restart it gets a snapshot and rebuilds), and draws every deployment.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './app.css';
import { h, table } from './dom.js';
import { drawPositionCharts, type PositionExits } from './position-charts.js';
import { ageMs, pnl, share, shortMint, sol, solNumber, time } from './format.js';

interface Feed {
  state: string;
  connected: boolean;
  lastFrameAgeMs: number | null;
  framesPerSec: number;
  frames: number;
  gaps: number;
  reconnects: number;
  rejected: number;
}
interface Position {
  strategyId: string;
  mint: string;
  costLamports: string;
  valueLamports: string | null;
  unrealisedLamports: string | null;
  realisedLamports: string;
  /** Exit levels the engine holds (exact decimal prices, SOL per token); null without rules. */
  exits?: PositionExits | null;
}
interface Pending {
  id: string;
  strategyId: string;
  side: string;
  mint: string;
  amountIn: string;
  state: string;
  createdAt: number;
}
interface Risk {
  dailyLossLamports: string;
  dailyLossLimitLamports: string | null;
  dailyHalted: boolean;
  killed: boolean;
  killReason: string | null;
  exposureLamports: string;
  maxExposureLamports: string | null;
}
interface Detail {
  name: string;
  mode: string;
  state: string;
  cause: { code: string; message: string } | null;
  ready: boolean;
  equityLamports: string | null;
  feed: Feed | null;
  positions: Position[];
  pending: Pending[];
  risk: Risk | null;
  summary: { fills: number; realisedLamports: string; unrealisedLamports: string } | null;
}
interface Decision {
  kind: string;
  at: number;
  strategyId: string;
  side?: string;
  mint?: string;
  amountIn?: string;
  solAmount?: string;
  tokenAmount?: string;
  code?: string;
  reason?: string;
  outcome?: string;
  intentId?: string;
  /** `manual` entries: the action, who asked and why. */
  action?: string;
  by?: string;
  why?: string;
  target?: { mint?: string; intentId?: string };
}
interface DecisionMsg {
  seq: number;
  deployment: string;
  entry: Decision;
}
interface EventMsg {
  seq: number;
  deployment: string;
  event: { type: string; at: number; state?: string; equityLamports?: string; level?: string; code?: string; message?: string };
}
interface Snapshot {
  boot: string;
  reset: boolean;
  deployments: Detail[];
  decisions: DecisionMsg[];
  equity: Record<string, [number, string][]>;
}

const TOKEN_KEY = 'chainpilot.apiToken';
const MAX_ROWS = 50;
const MAX_POINTS = 5_000;

/** Counters the browser test reads: a resumed stream must never show a gap or a duplicate. */
const stats = { connects: 0, snapshots: 0, resets: 0, duplicates: 0, gaps: 0, messages: 0 };
(window as unknown as { chainpilotDashboard: typeof stats }).chainpilotDashboard = stats;

let boot = '';
let lastId = '';
let decisionSeq = 0;
let eventSeq = 0;
const details = new Map<string, Detail>();
const decisions = new Map<number, DecisionMsg>();
const equity = new Map<string, { xs: number[]; ys: number[] }>();
const alerts: EventMsg[] = [];
const charts = new Map<string, uPlot>();
let source: EventSource | undefined;
let dirty = false;

const $ = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;
const token = (): string | null => sessionStorage.getItem(TOKEN_KEY);

async function api(path: string, method = 'GET', body?: unknown): Promise<unknown> {
  const res = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${token() ?? ''}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status === 401) {
    signOut('The daemon refused the token.');
    throw new Error('unauthorised');
  }
  const json = (await res.json()) as unknown;
  const err = (json as { error?: { code?: string; message?: string } }).error;
  if (!res.ok) throw new Error(err ? `${err.code ?? 'ERROR'}: ${err.message ?? ''}` : `HTTP ${res.status}`);
  return json;
}

function setConnection(text: string, ok: boolean): void {
  const el = $('connection');
  el.textContent = text;
  el.className = ok ? 'ok' : 'bad';
}

function signOut(message: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  source?.close();
  source = undefined;
  $('app').hidden = true;
  $('signin').hidden = false;
  $('signin-error').textContent = message;
}

// ---- stream -------------------------------------------------------------------------------

let retryMs = 500;
async function connect(): Promise<void> {
  if (!token()) return;
  setConnection('connecting…', false);
  let ticket: string;
  try {
    ticket = ((await api('/api/stream-ticket', 'POST', {})) as { ticket: string }).ticket;
  } catch (e) {
    if (!token()) return;
    setConnection(`daemon unreachable (${(e as Error).message}); retrying`, false);
    setTimeout(() => void connect(), retryMs);
    retryMs = Math.min(retryMs * 2, 5_000);
    return;
  }
  const es = new EventSource(`/api/stream?ticket=${encodeURIComponent(ticket)}${lastId ? `&lastEventId=${encodeURIComponent(lastId)}` : ''}`);
  source = es;
  stats.connects++;
  const withId = (fn: (data: never, id: string) => void) => (e: MessageEvent<string>) => {
    stats.messages++;
    fn(JSON.parse(e.data) as never, e.lastEventId);
    if (e.lastEventId) lastId = e.lastEventId;
    schedule();
  };
  es.addEventListener('open', () => {
    retryMs = 500;
    setConnection('live', true);
  });
  es.addEventListener('snapshot', withId(onSnapshot));
  es.addEventListener('decision', withId(onDecision));
  es.addEventListener('event', withId(onEvent));
  es.addEventListener(
    'status',
    withId((s: { deployments: Detail[] }) => {
      for (const d of s.deployments) details.set(d.name, d);
      for (const name of [...details.keys()]) if (!s.deployments.some((d) => d.name === name)) details.delete(name);
    }),
  );
  es.addEventListener('error', () => {
    // The ticket was single-use: reconnect by hand with a new one and the last id.
    es.close();
    if (source === es) source = undefined;
    setConnection('disconnected; reconnecting', false);
    setTimeout(() => void connect(), retryMs);
  });
}

function onSnapshot(s: Snapshot, id: string): void {
  stats.snapshots++;
  if (s.reset) stats.resets++;
  boot = s.boot;
  details.clear();
  decisions.clear();
  equity.clear();
  alerts.length = 0;
  for (const c of charts.values()) c.destroy();
  charts.clear();
  $('deployments').replaceChildren();
  for (const d of s.deployments) details.set(d.name, d);
  for (const m of s.decisions) decisions.set(m.seq, m);
  for (const [name, pts] of Object.entries(s.equity)) equity.set(name, { xs: pts.map((p) => p[0] / 1_000), ys: pts.map((p) => solNumber(p[1])) });
  const [, d, e] = /\.(\d+)\.(\d+)$/.exec(id) ?? [];
  decisionSeq = Number(d ?? 0);
  eventSeq = Number(e ?? 0);
}

function onDecision(m: DecisionMsg): void {
  if (decisions.has(m.seq) || m.seq <= decisionSeq) {
    stats.duplicates++;
    return;
  }
  if (m.seq !== decisionSeq + 1) stats.gaps++;
  decisionSeq = m.seq;
  decisions.set(m.seq, m);
  if (decisions.size > 2_000) decisions.delete(Math.min(...decisions.keys()));
}

function onEvent(m: EventMsg): void {
  if (m.seq <= eventSeq) {
    stats.duplicates++;
    return;
  }
  if (m.seq !== eventSeq + 1) stats.gaps++;
  eventSeq = m.seq;
  const ev = m.event;
  if (ev.type === 'equity' && ev.equityLamports) {
    const series = equity.get(m.deployment) ?? { xs: [], ys: [] };
    series.xs.push(ev.at / 1_000);
    series.ys.push(solNumber(ev.equityLamports));
    if (series.xs.length > MAX_POINTS) {
      series.xs.shift();
      series.ys.shift();
    }
    equity.set(m.deployment, series);
  } else if (ev.type === 'state' && ev.state) {
    const d = details.get(m.deployment);
    if (d) details.set(m.deployment, { ...d, state: ev.state });
  } else if (ev.type === 'alert') {
    alerts.unshift(m);
    alerts.length = Math.min(alerts.length, 100);
  }
}

// ---- drawing -------------------------------------------------------------------------------

function schedule(): void {
  if (dirty) return;
  dirty = true;
  setTimeout(() => {
    dirty = false;
    render();
  }, 200);
}

const badge = (state: string): HTMLElement => h('span', { class: `state state-${state}` }, state);

function decisionRows(name: string, kinds: readonly string[]): { key: string; cells: (string | HTMLElement)[]; cls?: string }[] {
  const rows: { key: string; cells: (string | HTMLElement)[]; cls?: string }[] = [];
  const seqs = [...decisions.keys()].sort((a, b) => b - a);
  for (const seq of seqs) {
    const m = decisions.get(seq);
    if (!m || m.deployment !== name || !kinds.includes(m.entry.kind)) continue;
    const e = m.entry;
    const key = `${boot}:${seq}`;
    if (e.kind === 'fill')
      rows.push({ key, cells: [time(e.at), e.strategyId, e.side ?? '', shortMint(e.mint ?? ''), `${sol(e.solAmount)} SOL`, e.tokenAmount ?? ''] });
    else {
      if (e.kind === 'manual') {
        rows.push({
          key,
          cls: 'kind-manual',
          cells: [time(e.at), `manual ${e.action ?? ''}`, e.by ?? '', '', shortMint(e.target?.mint ?? e.target?.intentId ?? ''), '', '', e.why ?? ''],
        });
        continue;
      }
      const what =
        e.kind === 'denied'
          ? h('span', { class: 'code' }, e.code ?? '')
          : e.kind === 'unfilled'
            ? h('span', { class: 'code' }, `${e.outcome ?? ''} ${e.code ?? ''}`)
            : '';
      rows.push({
        key,
        cls: `kind-${e.kind}`,
        cells: [
          time(e.at),
          e.kind,
          e.strategyId,
          e.side ?? '',
          e.mint ? shortMint(e.mint) : '',
          e.amountIn ? (e.side === 'sell' ? `${e.amountIn} raw` : `${sol(e.amountIn)} SOL`) : '',
          what,
          e.reason ?? '',
        ],
      });
    }
    if (rows.length >= MAX_ROWS) break;
  }
  return rows;
}

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
    h('div', { class: 'grid' }, h('div', { class: 'chart' }), h('div', { class: 'facts' })),
    h('h3', {}, 'Open positions'),
    h('div', { class: 'positions' }),
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

function render(): void {
  const names = [...details.keys()].sort();
  for (const el of document.querySelectorAll<HTMLElement>('section.deployment')) if (!details.has(el.dataset['name'] ?? '')) el.remove();
  $('summary').replaceChildren(
    table(
      'overview',
      ['deployment', 'mode', 'state', 'ready', 'equity (SOL)'],
      names.map((n) => {
        const d = details.get(n) as Detail;
        return { key: n, cells: [n, d.mode, badge(d.state), d.ready ? 'yes' : 'no', sol(d.equityLamports)] };
      }),
      'No deployments.',
    ),
  );
  for (const name of names) {
    const d = details.get(name) as Detail;
    const el = card(name);
    (el.querySelector('.mode') as HTMLElement).textContent = d.mode;
    (el.querySelector('.badge') as HTMLElement).replaceChildren(badge(d.state));
    (el.querySelector('.cause') as HTMLElement).textContent = d.cause ? `${d.cause.code}: ${d.cause.message}` : '';
    (el.querySelector('.facts') as HTMLElement).replaceChildren(facts(d));
    (el.querySelector('.positions') as HTMLElement).replaceChildren(
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
    (el.querySelector('.pending') as HTMLElement).replaceChildren(
      table(
        'pending',
        ['since', 'strategy', 'side', 'mint', 'amount in', 'journal state', ''],
        d.pending.map((p) => ({
          key: p.id,
          cells: [
            time(p.createdAt),
            p.strategyId,
            p.side,
            shortMint(p.mint),
            p.side === 'buy' ? `${sol(p.amountIn)} SOL` : p.amountIn,
            p.state,
            actionButton(
              'Cancel',
              `cancel-${p.id}`,
              () =>
                void manual(name, `intents/${encodeURIComponent(p.id)}/cancel`, {}, `Cancel intent ${p.id} (${p.side} ${shortMint(p.mint)})?`, 'Cancel intent'),
            ),
          ],
        })),
        'No pending intents.',
      ),
    );
    (el.querySelector('.fills') as HTMLElement).replaceChildren(
      table('fills', ['time', 'strategy', 'side', 'mint', 'SOL', 'tokens (raw)'], decisionRows(name, ['fill']), 'No fills yet.'),
    );
    (el.querySelector('.decisions') as HTMLElement).replaceChildren(
      table(
        'decisions',
        ['time', 'kind', 'strategy', 'side', 'mint', 'amount', 'code', 'reason'],
        decisionRows(name, ['intent', 'denied', 'unfilled', 'manual']),
        'No decisions yet.',
      ),
    );
    drawChart(name, el.querySelector('.chart') as HTMLElement);
    drawPositionCharts(name, el.querySelector('.position-charts') as HTMLElement, d.positions, MAX_POINTS);
  }
  $('alerts').replaceChildren(
    table(
      'alerts',
      ['deployment', 'level', 'code', 'message'],
      alerts.slice(0, 20).map((a) => ({ key: `${boot}:e${a.seq}`, cells: [a.deployment, a.event.level ?? '', a.event.code ?? '', a.event.message ?? ''] })),
      'No alerts.',
    ),
  );
}

function drawChart(name: string, host: HTMLElement): void {
  const series = equity.get(name) ?? { xs: [], ys: [] };
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

async function act(name: string, action: string): Promise<void> {
  if (action === 'kill' || action === 'pause') {
    const ok = await confirmAction(
      action === 'kill'
        ? `Kill ${name}? No new buys until unkilled (persisted: survives restarts). Exits keep working.`
        : `Pause entries of ${name}? Exits keep working.`,
      action === 'kill' ? 'Kill' : 'Pause',
    );
    if (!ok) return;
  }
  try {
    await api(`/api/deployments/${encodeURIComponent(name)}/${action}`, 'POST', { reason: `${action} from the dashboard` });
    $('notice').textContent = `${name}: ${action} done`;
  } catch (e) {
    $('notice').textContent = `${name}: ${action} failed: ${(e as Error).message}`;
  }
}

function actionButton(label: string, id: string, onClick: () => void): HTMLElement {
  const b = h('button', { type: 'button', class: 'small', 'data-manual': id }, label);
  b.addEventListener('click', onClick);
  return b;
}

function closeButton(name: string, p: Position, fractionBps: number, label: string): HTMLElement {
  const share = fractionBps === 10_000 ? 'all' : `${fractionBps / 100} %`;
  return actionButton(
    label,
    `close-${fractionBps}-${p.mint}`,
    () =>
      void manual(
        name,
        'positions/close',
        { mint: p.mint, strategyId: p.strategyId, fractionBps },
        `Sell ${share} of ${shortMint(p.mint)} (${p.strategyId}) in ${name}?`,
        label,
      ),
  );
}

/** Exact lamports of a decimal SOL text (`0.1` → `100000000`), or undefined when it is not one. */
function lamportsOf(solText: string): string | undefined {
  const m = /^(\d{1,9})(?:\.(\d{1,9}))?$/.exec(solText);
  if (!m) return undefined;
  const v = BigInt(m[1] ?? '0') * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
  return v > 0n ? v.toString() : undefined;
}

async function forceEntry(name: string, mint: string, solText: string, strategyId: string): Promise<void> {
  const spendLamports = lamportsOf(solText);
  if (!mint || spendLamports === undefined) {
    $('notice').textContent = `${name}: give a mint and a positive SOL amount (up to 9 decimals)`;
    return;
  }
  await manual(
    name,
    'entries',
    { mint, spendLamports, ...(strategyId ? { strategyId } : {}) },
    `Buy ${solText} SOL of ${shortMint(mint)} in ${name}? It goes through the risk gate.`,
    'Buy',
  );
}

/** A manual action, after confirmation; the answer (placed, or the denial with its code) goes to the notice line. */
async function manual(name: string, path: string, body: Record<string, unknown>, question: string, verb: string): Promise<void> {
  if (!(await confirmAction(question, verb))) return;
  try {
    const r = (await api(`/api/deployments/${encodeURIComponent(name)}/${path}`, 'POST', {
      ...body,
      by: 'dashboard',
      reason: `${verb} from the dashboard`,
    })) as {
      intentId: string;
    };
    $('notice').textContent = `${name}: ${verb} placed (${r.intentId})`;
  } catch (e) {
    $('notice').textContent = `${name}: ${verb} refused: ${(e as Error).message}`;
  }
}

function confirmAction(text: string, verb: string): Promise<boolean> {
  const dialog = $('confirm') as HTMLDialogElement;
  $('confirm-text').textContent = text;
  $('confirm-yes').textContent = verb;
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true }));
}

async function loadReports(): Promise<void> {
  const r = (await api('/api/reports')) as { reports: { path: string; sizeBytes: number; modifiedAt: number }[] };
  $('reports').replaceChildren(
    table(
      'reports',
      ['report', 'written', 'size'],
      r.reports.map((x) => {
        const b = h('button', { type: 'button', class: 'link' }, x.path);
        b.addEventListener('click', () => void openReport(x.path));
        return { key: x.path, cells: [b, new Date(x.modifiedAt).toISOString().replace('T', ' ').slice(0, 19), `${Math.ceil(x.sizeBytes / 1024)} KB`] };
      }),
      'No reports (start the daemon with --reports-dir).',
    ),
  );
}

async function openReport(path: string): Promise<void> {
  const w = window.open('about:blank', '_blank');
  const { ticket } = (await api('/api/stream-ticket', 'POST', {})) as { ticket: string };
  const url = `/api/reports/open?path=${encodeURIComponent(path)}&ticket=${encodeURIComponent(ticket)}`;
  if (w) w.location.href = url;
}

function start(): void {
  $('signin').hidden = true;
  $('app').hidden = false;
  void connect();
  void loadReports().catch(() => undefined);
}

$('signin-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = $('token') as HTMLInputElement;
  sessionStorage.setItem(TOKEN_KEY, input.value.trim());
  input.value = '';
  start();
});
$('signout').addEventListener('click', () => signOut('Signed out.'));
$('reports-refresh').addEventListener('click', () => void loadReports());
if (token()) start();
