/**
 * openapi.json names every route the daemon serves: the routes are read from the real app
 * (control API and the dashboard's routes, as fastify registered them), and each must be in the
 * document with its method, so a route added without its schema fails here.
 */
import { describe, expect, it } from 'vitest';
import { startTestServer, TOKEN } from '../dashboard/support.js';

/** `METHOD /path` of every route in fastify's route tree (`printRoutes({ commonPrefix: false })`). */
function routesOf(tree: string): { method: string; url: string }[] {
  const stack: string[] = [];
  const out: { method: string; url: string }[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[└├]── (.+?) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? '').length / 4;
    const url = (depth === 0 ? '' : (stack[depth - 1] ?? '')) + (m[2] ?? '');
    stack[depth] = url;
    for (const method of (m[3] ?? '').split(', ')) out.push({ method, url: url.startsWith('/') ? url : `/${url}` });
  }
  return out;
}

describe('the OpenAPI document', () => {
  it('lists every API route of the control app and the dashboard, with its method', async () => {
    const t = await startTestServer();
    try {
      const routes = routesOf(t.app.printRoutes({ commonPrefix: false }));
      const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { authorization: `Bearer ${TOKEN}` } })).json() as {
        paths: Record<string, Record<string, unknown>>;
      };
      const api = routes.filter((r) => r.method !== 'HEAD' && /^\/(api\/|healthz|readyz|metrics)/.test(r.url) && r.url !== '/api/openapi.json');
      expect(api.length).toBeGreaterThan(15);
      const missing = api.filter((r) => !doc.paths[r.url.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()]).map((r) => `${r.method} ${r.url}`);
      expect(missing).toEqual([]);
      for (const p of ['/api/stream', '/api/stream-ticket', '/api/reports', '/api/reports/open', '/api/deployments/{name}/positions/close'])
        expect(Object.keys(doc.paths)).toContain(p);
    } finally {
      await t.close();
    }
  });
});
