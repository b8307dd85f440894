/** The backtest reports list; a report opens in a new tab with a single-use ticket (a navigation cannot send the token). */
import { h, table } from './dom.js';
import { $, api } from './session.js';

export async function loadReports(): Promise<void> {
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
