import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listReports, readReport } from '../../src/service/dashboard/reports.js';
import { startTestServer, TOKEN, type TestServer } from './support.js';

let root = '';
let dir = '';
let server: TestServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cp-reports-'));
  dir = join(root, 'reports');
  mkdirSync(join(dir, 'run-1'), { recursive: true });
  mkdirSync(join(dir, 'run-2'));
  mkdirSync(join(dir, 'empty'));
  writeFileSync(join(dir, 'run-1', 'report.html'), '<h1>run 1</h1>');
  writeFileSync(join(dir, 'run-2', 'report.html'), '<h1>run 2</h1>');
  writeFileSync(join(dir, 'top.html'), '<h1>top</h1>');
  writeFileSync(join(dir, 'notes.txt'), 'not a report');
  writeFileSync(join(root, 'secret.html'), '<h1>outside</h1>');
  symlinkSync(join(root, 'secret.html'), join(dir, 'link.html'));
  server = await startTestServer({ reportsDir: dir });
});
afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

const ticket = async (): Promise<string> =>
  ((await (await fetch(`${server.url}/api/stream-ticket`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { ticket: string })
    .ticket;

describe('backtest reports', () => {
  it('lists *.html and */report.html under the directory, and nothing else', () => {
    expect(
      listReports(dir)
        .map((r) => r.path)
        .sort(),
    ).toEqual(['run-1/report.html', 'run-2/report.html', 'top.html']);
    expect(listReports(join(root, 'missing'))).toEqual([]);
  });

  it('opens only a listed report: no traversal, no absolute path, no symlink out', () => {
    expect(readReport(dir, 'run-1/report.html')?.toString()).toBe('<h1>run 1</h1>');
    for (const bad of ['../secret.html', 'run-1/../../secret.html', join(root, 'secret.html'), 'link.html', 'notes.txt', 'run-1', ''])
      expect(readReport(dir, bad), bad).toBeUndefined();
  });

  it('serves the list with the token and a report with a single-use ticket in a sandbox', async () => {
    expect((await fetch(`${server.url}/api/reports`)).status).toBe(401);
    const list = (await (await fetch(`${server.url}/api/reports`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      reports: { path: string }[];
    };
    expect(list.reports).toHaveLength(3);
    expect((await fetch(`${server.url}/api/reports/open?path=top.html`)).status).toBe(401);
    const t = await ticket();
    const res = await fetch(`${server.url}/api/reports/open?path=${encodeURIComponent('run-2/report.html')}&ticket=${t}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe('sandbox allow-scripts');
    expect(await res.text()).toBe('<h1>run 2</h1>');
    expect((await fetch(`${server.url}/api/reports/open?path=top.html&ticket=${t}`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/reports/open?path=${encodeURIComponent('../secret.html')}&ticket=${await ticket()}`)).status).toBe(404);
  });
});
