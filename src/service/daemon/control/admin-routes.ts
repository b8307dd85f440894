/**
 * The daemon's own resource: liveness and readiness probes (public), the Prometheus text, the
 * OpenAPI document, and reload.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { isChainpilotError, type Clock } from '../../../core/index.js';
import * as s from '../../api-schemas.js';
import type { DaemonMetrics } from '../daemon-metrics.js';
import { answer, refused, textAnswer } from '../openapi.js';
import type { ReloadDiff } from '../supervisor.js';
import { sendError, type Slots } from './replies.js';

export interface AdminRoutesOptions {
  readonly supervisor: Pick<Slots, 'list'>;
  readonly metrics: Pick<DaemonMetrics, 'scrape' | 'contentType'>;
  readonly reload: () => Promise<ReloadDiff>;
  readonly clock: Clock;
  /** Why the daemon as a whole is not ready (memory near its ceiling); empty when it is. */
  readonly daemonReasons?: () => readonly string[];
}

export function adminRoutes(o: AdminRoutesOptions): FastifyPluginAsync {
  const startedAt = o.clock.now();
  return async (plain) => {
    const api = plain.withTypeProvider<ZodTypeProvider>();
    // Browsers ask for it on every page; no icon, and no 401 in the console.
    api.get('/favicon.ico', { config: { public: true }, schema: { hide: true } }, async (_req, reply) => reply.code(204).send());
    api.get('/healthz', { config: { public: true }, schema: { summary: 'the process is up', response: { 200: s.healthBody } } }, async () => ({
      status: 'ok' as const,
      uptimeSeconds: Math.max(0, o.clock.now() - startedAt) / 1000,
    }));
    api.get(
      '/readyz',
      {
        config: { public: true },
        schema: {
          summary: 'every deployment started, reconciled and its feed connected recently',
          response: { 200: s.readyBody, 503: answer(s.readyBody, 'not ready, with the reasons') },
        },
      },
      async (_req, reply) => {
        const deployments = o.supervisor.list().map((slot) => {
          const h = slot.handle?.health();
          const reasons = h ? [...h.reasons] : [slot.cause ? `${slot.state}: ${slot.cause.code}: ${slot.cause.message}` : `state ${slot.state}`];
          const ready = h?.ready === true && slot.state !== 'failed' && slot.state !== 'restarting';
          if (!ready && reasons.length === 0) reasons.push(`state ${slot.state}`);
          return { name: slot.name, state: slot.state, ready, reasons: ready ? [] : reasons };
        });
        const reasons = [...(o.daemonReasons?.() ?? [])];
        const ready = deployments.length > 0 && deployments.every((d) => d.ready) && reasons.length === 0;
        return reply.code(ready ? 200 : 503).send({ ready, reasons, deployments } satisfies z.infer<typeof s.readyBody>);
      },
    );
    api.get(
      '/metrics',
      { schema: { summary: 'Prometheus text format', response: { 200: textAnswer('text/plain', 'metrics'), 401: refused[401] } } },
      async (_req, reply) => {
        const { text, ageMs } = await o.metrics.scrape();
        return reply.header('content-type', o.metrics.contentType).header('x-metrics-age-ms', Math.round(ageMs)).send(text);
      },
    );
    api.get('/api/openapi.json', { schema: { hide: true } }, async () => plain.swagger());
    api.post(
      '/api/reload',
      {
        schema: {
          summary: 're-read the deployment files and apply the difference',
          response: {
            200: s.reloadBody,
            401: refused[401],
            409: answer(s.errorBody, 'the new set cannot fit the memory limit (RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED); the running set is kept'),
          },
        },
      },
      async (_req, reply) => {
        let d: ReloadDiff;
        try {
          d = await o.reload();
        } catch (e) {
          // A set that cannot fit is the operator's to fix: 409 with the code, the running set kept.
          if (isChainpilotError(e) && e.code === 'RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED') return sendError(reply, 409, e.code, e.message);
          throw e;
        }
        return {
          added: [...d.added],
          removed: [...d.removed],
          changed: [...d.changed],
          unchanged: [...d.unchanged],
          invalid: d.invalid.map((i) => ({ ...i })),
        } satisfies z.infer<typeof s.reloadBody>;
      },
    );
  };
}
