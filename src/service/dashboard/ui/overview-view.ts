/** The page's overview: one row per deployment (mode, state, readiness, equity), and the latest alerts. */
import { table } from './dom.js';
import { sol } from './format.js';
import { badge } from './deployment-view.js';
import { $ } from './session.js';
import { store } from './store.js';
import type { Detail } from './types.js';

/** The summary table of the deployments `names` (sorted). */
export function drawOverview(names: readonly string[]): void {
  $('summary').replaceChildren(
    table(
      'overview',
      ['deployment', 'mode', 'state', 'ready', 'equity (SOL)'],
      names.map((n) => {
        const d = store.details.get(n) as Detail;
        return { key: n, cells: [n, d.mode, badge(d.state), d.ready ? 'yes' : 'no', sol(d.equityLamports)] };
      }),
      'No deployments.',
    ),
  );
}

/** The 20 newest alerts of every deployment. */
export function drawAlerts(): void {
  $('alerts').replaceChildren(
    table(
      'alerts',
      ['deployment', 'level', 'code', 'message'],
      store.alerts
        .slice(0, 20)
        .map((a) => ({ key: `${store.boot}:e${a.seq}`, cells: [a.deployment, a.event.level ?? '', a.event.code ?? '', a.event.message ?? ''] })),
      'No alerts.',
    ),
  );
}
