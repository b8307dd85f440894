/**
 * The dashboard in a real browser: headless Chromium (Debian's, driven by playwright-core) against
 * a real daemon whose paper deployments trade on the embedded simulator. Sign in; see the
 * deployments; a fill appears without a reload; the kill button (after its confirmation) stops new
 * buys, which the decisions API proves; a forced buy held by `paper.manualHold` is cancelled with its
 * Cancel button and the intent ends cancelled; after the daemon restarts on the same port the page
 * reconnects and resumes with no duplicate row and no gap. Skipped where Chromium is missing,
 * except under CI, where that is a failure.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsRun, launchChromium } from '../helpers/chromium.js';
import { silentLogger } from '../../src/core/index.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import * as schemas from '../../src/service/api-schemas.js';
import { startDaemon, type RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import { createSharedEndpoints, type SharedEndpoints } from '../../src/service/daemon/shared-endpoints.js';
import { createDashboard } from '../../src/service/dashboard/dashboard-routes.js';
import { waitFor } from './support/wait-for.js';

const TOKEN = 'dashboard-e2e-token-0123456789abcdef';
const ARTIFACTS = join(process.cwd(), 'test-artifacts');

const paperYaml = (name: string, seed: number): string => `version: 1
name: ${name}
endpoints:
  simulator:
    seed: ${seed}
    speed: 120
strategies:
  - use: curve-momentum
    params: { milestonePct: 25, buySol: "0.1", minHolders: 5 }
    exits: { takeProfit: [{ multiple: "1.3", sellBps: 10000 }], stopLossBps: 2000, timeStop: 5m }
  - use: graduation-sniper
    params: { buySol: "0.1" }
risk: { maxTradeSol: "0.5", maxOpenPositions: 20, maxExposureSol: "5", dailyLossLimitSol: "3" }
telemetry: { logLevel: silent }
`;

/**
 * A deployment that never trades on its own, whose operator intents wait `paper.manualHold` (an
 * hour of run clock, the limit) before their latency: a simulator at speed 1 makes that an hour of
 * wall, so the intent is still cancellable however slow the machine is.
 */
const heldYaml = (name: string): string => `version: 1
name: ${name}
endpoints:
  simulator:
    seed: 44
    speed: 1
strategies:
  - use: ${join(process.cwd(), 'test/e2e/fixtures/idle-strategy.ts')}
risk: { maxTradeSol: "0.5" }
paper: { manualHold: 1h }
telemetry: { logLevel: silent }
`;

interface PageStats {
  connects: number;
  snapshots: number;
  resets: number;
  duplicates: number;
  gaps: number;
  messages: number;
}

describe.runIf(browserTestsRun('dashboard-browser.test'))('the dashboard in headless Chromium', () => {
  let dir = '';
  let daemon: RunningDaemon;
  let endpoints: SharedEndpoints;
  let browser: Browser;
  let page: Page;
  let port = 0;
  const requested: string[] = [];
  const env = { ...process.env, CHAINPILOT_API_TOKEN: TOKEN };

  const start = async (listen: string): Promise<RunningDaemon> => {
    const dashboard = createDashboard({ reportsDir: join(dir, 'reports') });
    return startDaemon({
      paths: [join(dir, 'deployments')],
      factory: createDeployment,
      deps: endpoints,
      listen,
      dataDir: join(dir, 'data'),
      env,
      version: 'test',
      log: silentLogger(),
      plugins: [dashboard.plugin],
    });
  };
  const api = async (path: string, method = 'GET', body?: unknown): Promise<unknown> => {
    const res = await fetch(`${daemon.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return res.json();
  };
  /** Saves a screenshot under test-artifacts/ (and into docs/ when DASHBOARD_SCREENSHOT_TO_DOCS=1). */
  const screenshot = async (name: string): Promise<void> => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, name) });
    expect(existsSync(join(ARTIFACTS, name))).toBe(true);
    if (process.env['DASHBOARD_SCREENSHOT_TO_DOCS'] === '1' && name === 'dashboard-killed.png')
      copyFileSync(join(ARTIFACTS, name), join(process.cwd(), 'docs', 'dashboard.png'));
  };
  // Browser-side expressions are strings: this file is type-checked for Node, not the DOM.
  const pageStats = (): Promise<PageStats> => page.evaluate<PageStats>('({ ...window.chainpilotDashboard })');
  /** Every row key in every table of the page, per table: none may repeat. */
  const rowKeys = (): Promise<string[][]> =>
    page.evaluate<string[][]>(
      "[...document.querySelectorAll('table')].map((t) => [...t.querySelectorAll('tr[data-key]')].map((r) => r.getAttribute('data-key')))",
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-dashboard-'));
    mkdirSync(join(dir, 'deployments'));
    mkdirSync(join(dir, 'reports', 'run-1'), { recursive: true });
    writeFileSync(join(dir, 'reports', 'run-1', 'report.html'), '<!doctype html><title>run 1</title><h1>Backtest run 1</h1>');
    writeFileSync(join(dir, 'deployments', 'a.yaml'), paperYaml('paper-a', 42));
    writeFileSync(join(dir, 'deployments', 'b.yaml'), paperYaml('paper-b', 43));
    writeFileSync(join(dir, 'deployments', 'c.yaml'), heldYaml('paper-held'));
    endpoints = createSharedEndpoints({ log: silentLogger(), redactor: (await import('../../src/core/index.js')).createRedactor() });
    daemon = await start('127.0.0.1:0');
    port = Number(new URL(daemon.url).port);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    page.on('request', (r) => requested.push(r.url()));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await daemon?.stop({ drainMs: 5_000 });
    await endpoints?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('signs in with the token, keeps it out of the URL, and shows every deployment with its state and mode', async () => {
    await page.goto(`${daemon.url}/`);
    await page.fill('#token', TOKEN);
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('section.deployment[data-name="paper-a"]');
    await page.waitForSelector('section.deployment[data-name="paper-b"]');
    await page.waitForSelector('#connection.ok');
    expect(page.url()).not.toContain(TOKEN);
    expect(requested.some((u) => u.includes('/api/stream?ticket='))).toBe(true);
    expect(requested.filter((u) => u.includes(TOKEN))).toEqual([]);
    expect(await page.evaluate<string>("sessionStorage.getItem('chainpilot.apiToken')")).toBe(TOKEN);
    expect(await page.evaluate<number>('localStorage.length')).toBe(0);
    const overview = await page.textContent('#summary');
    expect(overview).toMatch(/paper-a\s*paper/);
    expect(overview).toMatch(/paper-b\s*paper/);
    await page.waitForSelector('section.deployment[data-name="paper-a"] .chart canvas');
    expect(await page.textContent('#reports')).toContain('run-1/report.html');
  }, 60_000);

  it('shows a fill made by the simulator within a few seconds, without a reload', async () => {
    const before = daemon.decisions.lastSeq;
    const fill = await waitFor(
      'a new fill in the API',
      async () => schemas.pageBody.parse(await api(`/api/deployments/paper-a/fills?after=${before}&limit=1000`)).entries[0],
      90_000,
    );
    const seen = Date.now();
    await page.waitForSelector(`section.deployment[data-name="paper-a"] table.fills tr[data-key$=":${fill.seq}"]`, { timeout: 5_000 });
    expect(Date.now() - seen).toBeLessThan(5_000);
    const row = await page.textContent(`table.fills tr[data-key$=":${fill.seq}"]`);
    expect(row).toContain(String(fill.entry['strategyId']));
    // a fill's time is the deployment's run clock (the simulator's, 120 × the wall here): the column says so
    expect(await page.textContent('section.deployment[data-name="paper-a"] table.fills thead')).toContain('run time (UTC)');
    expect(await page.evaluate<number>("performance.getEntriesByType('navigation').length")).toBe(1);
  }, 120_000);

  it("draws an open position's exit levels on its price chart: a line and a legend entry for the take profit and the stop, relative to entry", async () => {
    // positions of strategies with exit rules get level lines; wait for one with a stop
    const stop = 'section.deployment .position-chart .levels .level[data-level="stop"]';
    await page.waitForSelector(stop, { timeout: 90_000 });
    const chart = await page.evaluate<{ key: string; legend: string[]; canvases: number; width: number; height: number; label: string }>(
      `(() => { const c = document.querySelector('${stop}').closest('.position-chart'); return { key: c.getAttribute('data-key'), legend: [...c.querySelectorAll('.levels .level')].map((l) => l.textContent.trim()), canvases: c.querySelectorAll('canvas').length, width: c.querySelector('.uplot').getBoundingClientRect().width, height: c.querySelector('canvas').getBoundingClientRect().height, label: c.querySelector('.label').textContent }; })()`,
    );
    expect(chart.canvases).toBeGreaterThan(0);
    // room to read it (it was a 280 × 120 thumbnail), and the clock its x axis runs on
    expect(chart.width).toBeGreaterThanOrEqual(360);
    expect(chart.height).toBeGreaterThanOrEqual(150);
    expect(chart.label).toContain('wall clock');
    // whichever strategy's position it is: take profits while pending, the stop, the trail once armed
    for (const l of chart.legend) expect(l).toMatch(/^(TP \d+ \d+\.\d\d×|stop \d\.\d\d×|trail \d\.\d\d×)$/);
    const stopLegend = chart.legend.find((l) => l.startsWith('stop '));
    expect(stopLegend).toBeDefined();
    // the API lists the same levels for that position, as exact prices
    const [name, strategyId, mint] = chart.key.split('|');
    const detail = schemas.deploymentDetailBody.parse(await api(`/api/deployments/${name}`));
    const pos = detail.positions.find((p) => p.strategyId === strategyId && p.mint === mint);
    if (pos?.exits) {
      expect(pos.exits.stopLossPrice).not.toBeNull();
      // the legend's stop is the API's stop relative to entry
      expect(stopLegend).toBe(`stop ${(Number(pos.exits.stopLossPrice) / Number(pos.exits.entryPrice)).toFixed(2)}×`);
    }
  }, 120_000);

  it('acts on a position from the page after the confirmation (sell half, a forced buy through the risk gate) and shows each manual decision as it arrives by SSE', async () => {
    const card = 'section.deployment[data-name="paper-b"]';
    // A position of the strategies to act on (the simulator trades within seconds).
    await page.waitForSelector(`${card} table.positions button[data-manual^="close-5000-"]`, { timeout: 90_000 });
    // Each open position has its price chart (price ÷ entry, the entry level dashed).
    await page.waitForSelector(`${card} .position-charts .position-chart canvas`, { timeout: 10_000 });
    await page.click(`${card} table.positions button[data-manual^="close-5000-"]`);
    await page.waitForSelector('dialog#confirm[open]');
    expect(await page.textContent('#confirm-text')).toMatch(/^Sell 50 % of .+ in paper-b\?/);
    await page.click('#confirm-yes');
    // Journaled first, then placed (or refused, when an exit rule sold it meanwhile): the row arrives by SSE.
    await page.waitForSelector(`${card} table.decisions tr.kind-manual`, { timeout: 10_000 });
    expect(await page.textContent(`${card} table.decisions tr.kind-manual`)).toMatch(/manual close.*dashboard.*Sell half from the dashboard/);
    expect(await page.textContent('#notice')).toMatch(/^paper-b: Sell half (placed \(int_|refused: ENGINE_MANUAL_REFUSED)/);
    // A forced buy above the per-trade limit: confirmed, denied by the risk gate, the code shown.
    const mint =
      ((await api('/api/deployments/paper-b')) as { positions: { mint: string }[] }).positions[0]?.mint ?? 'So11111111111111111111111111111111111111112';
    await page.fill(`${card} form.enter input[name="mint"]`, mint);
    await page.fill(`${card} form.enter input[name="sol"]`, '9');
    await page.fill(`${card} form.enter input[name="strategy"]`, 'graduation-sniper');
    await page.click(`${card} form.enter button[type="submit"]`);
    await page.waitForSelector('dialog#confirm[open]');
    expect(await page.textContent('#confirm-text')).toContain('Buy 9 SOL of');
    await page.click('#confirm-yes');
    await waitFor(
      'the denial on the page',
      async () => ((await page.textContent('#notice'))?.includes('Buy refused: RISK_TRADE_SIZE') ? true : undefined),
      10_000,
    );
    await page.click(`${card} details.config summary`);
    await waitFor(
      'the effective configuration',
      async () => ((await page.textContent(`${card} details.config pre`))?.includes('graduation-sniper') ? true : undefined),
      10_000,
    );
    await waitFor(
      'the manual entry row',
      async () => ((await page.textContent(`${card} table.decisions`))?.includes('manual enter') ? true : undefined),
      10_000,
    );
  }, 120_000);

  it('cancels a forced buy held by paper.manualHold from its Cancel button, after the confirmation: the intent ends cancelled, never filled', async () => {
    const card = 'section.deployment[data-name="paper-held"]';
    await page.waitForSelector(card);
    // any mint: the idle deployment has no price of it, and the hold comes before any wait for one
    const mint = 'So11111111111111111111111111111111111111112';
    await page.fill(`${card} form.enter input[name="mint"]`, mint);
    await page.fill(`${card} form.enter input[name="sol"]`, '0.1');
    await page.click(`${card} form.enter button[type="submit"]`);
    await page.waitForSelector('dialog#confirm[open]');
    expect(await page.textContent('#confirm-text')).toContain('Buy 0.1 SOL of');
    await page.click('#confirm-yes');
    const placed = await waitFor(
      'the placed notice with the intent id',
      async () => /^paper-held: .* placed \((int_[^)]+)\)/.exec((await page.textContent('#notice')) ?? '')?.[1],
      10_000,
    );
    // the held intent is listed as pending, with its Cancel button
    const cancel = `${card} table.pending button[data-manual="cancel-${placed}"]`;
    await page.waitForSelector(cancel, { timeout: 15_000 });
    await page.click(cancel);
    await page.waitForSelector('dialog#confirm[open]');
    expect(await page.textContent('#confirm-text')).toContain(`Cancel intent ${placed} (buy `);
    await page.click('#confirm-yes');
    // the API: the intent ended rejected with the cancel's code, no fill, no position, nothing pending
    const ended = await waitFor(
      'the cancelled intent to end',
      async () =>
        schemas.pageBody
          .parse(await api('/api/deployments/paper-held/decisions?limit=1000'))
          .entries.map((e) => e.entry)
          .find((e) => e['kind'] === 'unfilled' && e['intentId'] === placed),
      15_000,
    );
    expect(ended).toMatchObject({ code: 'ENGINE_INTENT_CANCELLED', outcome: 'rejected' });
    const detail = schemas.deploymentDetailBody.parse(await api('/api/deployments/paper-held'));
    expect(detail.pending.some((p) => p.id === placed)).toBe(false);
    expect(detail.positions).toEqual([]);
    // the page: the pending row goes, and the cancel shows among the decisions with its code
    await page.waitForSelector(cancel, { state: 'detached', timeout: 10_000 });
    await waitFor(
      'the cancel among the decisions on the page',
      async () => ((await page.textContent(`${card} table.decisions`))?.includes('ENGINE_INTENT_CANCELLED') ? true : undefined),
      10_000,
    );
  }, 120_000);

  it('kills a deployment after the confirmation, and every buy decided afterwards is denied', async () => {
    await page.click('section.deployment[data-name="paper-a"] button[data-action="kill"]');
    await page.waitForSelector('dialog#confirm[open]');
    expect(await page.textContent('#confirm-text')).toContain('Kill paper-a?');
    await page.click('#confirm-yes');
    await page.waitForSelector('section.deployment[data-name="paper-a"] header .state-killed', { timeout: 10_000 });
    const detail = schemas.deploymentDetailBody.parse(await api('/api/deployments/paper-a'));
    expect(detail.risk?.killed).toBe(true);
    const killedAt = daemon.decisions.lastSeq;
    const buy = await waitFor(
      'a buy decided after the kill',
      async () => {
        const p = schemas.pageBody.parse(await api(`/api/deployments/paper-a/decisions?after=${killedAt}&limit=1000`));
        return p.entries.find((e) => e.entry['side'] === 'buy');
      },
      90_000,
    );
    expect(buy.entry['kind']).toBe('denied');
    // The denial with its code shows in the page's decisions table.
    await page.waitForSelector(`section.deployment[data-name="paper-a"] table.decisions tr[data-key$=":${buy.seq}"].kind-denied`, { timeout: 5_000 });
    expect(await page.textContent(`table.decisions tr[data-key$=":${buy.seq}"]`)).toContain(String(buy.entry['code']));
    await screenshot('dashboard-killed.png');
  }, 120_000);

  it('reconnects after the daemon restarts on the same port and resumes with no duplicate row and no gap', async () => {
    const before = await pageStats();
    expect(before.duplicates).toBe(0);
    expect(before.gaps).toBe(0);
    await daemon.stop({ drainMs: 5_000 });
    await page.waitForSelector('#connection.bad', { timeout: 10_000 });
    daemon = await start(`127.0.0.1:${port}`);
    await waitFor('the page to take the new boot snapshot', async () => ((await pageStats()).resets > before.resets ? true : undefined), 30_000);
    await page.waitForSelector('#connection.ok', { timeout: 10_000 });
    // Let new decisions of the new run arrive, then check every table for repeats.
    const resetAt = (await pageStats()).messages;
    await waitFor('new messages after the restart', async () => ((await pageStats()).messages > resetAt + 20 ? true : undefined), 60_000);
    await waitFor('a decision row of the new run', async () => ((await rowKeys()).flat().some((k) => /:\d+$/.test(k)) ? true : undefined), 60_000);
    expect(requested.filter((u) => u.includes(TOKEN))).toEqual([]);
    const after = await pageStats();
    expect(after.duplicates).toBe(0);
    expect(after.gaps).toBe(0);
    for (const keys of await rowKeys()) expect(new Set(keys).size).toBe(keys.length);
    await screenshot('dashboard-after-restart.png');
  }, 180_000);
});
