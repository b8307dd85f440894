/**
 * The dashboard page: signs in with the API token (session.ts), follows the daemon's Server-Sent
 * Events stream into the store (stream.ts, store.ts), and draws its views at most every 200 ms: the
 * overview and alerts (overview-view.ts), one section per deployment (deployment-view.ts, with
 * equity-chart.ts, position-charts.ts, history-tables.ts and the controls of controls.ts), and the
 * reports list (reports-view.ts).
 */
import 'uplot/dist/uPlot.min.css';
import './app.css';
import { drawDeployment, removeGoneDeployments } from './deployment-view.js';
import { resetEquityCharts } from './equity-chart.js';
import { drawAlerts, drawOverview } from './overview-view.js';
import { loadReports } from './reports-view.js';
import { $, saveToken, signOut, token } from './session.js';
import { stats, store } from './store.js';
import { connect } from './stream.js';
import type { Detail } from './types.js';

(window as unknown as { chainpilotDashboard: typeof stats }).chainpilotDashboard = stats;

let dirty = false;

function schedule(): void {
  if (dirty) return;
  dirty = true;
  setTimeout(() => {
    dirty = false;
    render();
  }, 200);
}

function render(): void {
  const names = [...store.details.keys()].sort();
  removeGoneDeployments(store.details);
  drawOverview(names);
  for (const name of names) drawDeployment(name, store.details.get(name) as Detail);
  drawAlerts();
}

/** A snapshot replaced the store: the page is drawn again from nothing. */
function rebuild(): void {
  resetEquityCharts();
  $('deployments').replaceChildren();
}

function start(): void {
  $('signin').hidden = true;
  $('app').hidden = false;
  void connect({ onSnapshot: rebuild, changed: schedule });
  void loadReports().catch(() => undefined);
}

$('signin-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = $('token') as HTMLInputElement;
  saveToken(input.value.trim());
  input.value = '';
  start();
});
$('signout').addEventListener('click', () => signOut('Signed out.'));
$('reports-refresh').addEventListener('click', () => void loadReports());
if (token()) start();
