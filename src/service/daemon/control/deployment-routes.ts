/**
 * The deployments resource, read-only: the list, one deployment's detail and effective
 * configuration, and its decision history (fills, decisions, intents) paged by sequence.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { DecisionEntry } from '../../../runtime/handle/deployment-handle.js';
import * as s from '../../api-schemas.js';
import { createSummaryCache, detailView, intentView } from '../../api-views.js';
import type { EventLog, LoggedEntry } from '../../event-log.js';
import { answer, nameParams, refused } from '../openapi.js';
import { slotOr404, type Slots } from './replies.js';

export interface DeploymentRoutesOptions {
  readonly supervisor: Slots;
  readonly decisions: EventLog<DecisionEntry>;
  /** How old a row of `/api/deployments` may be when its slot did not change (wall ms, default 0: rebuilt per request). */
  readonly listMaxAgeMs?: number;
}

const page = (p: { entries: readonly LoggedEntry<DecisionEntry>[]; next: number; truncated: boolean }): z.infer<typeof s.pageBody> => ({
  entries: p.entries.map((e) => ({ seq: e.seq, deployment: e.deployment, entry: { ...e.value } })),
  next: p.next,
  truncated: p.truncated,
});

export function deploymentRoutes(o: DeploymentRoutesOptions): FastifyPluginAsync {
  const summaries = createSummaryCache({ maxAgeMs: o.listMaxAgeMs ?? 0 });
  const slotOf = slotOr404(o.supervisor);
  return async (plain) => {
    const api = plain.withTypeProvider<ZodTypeProvider>();
    api.get(
      '/api/deployments',
      { schema: { summary: 'every deployment with its state', response: { 200: s.deploymentListBody, 401: refused[401] } } },
      async () => ({ deployments: summaries.rows(o.supervisor.list()) }) satisfies z.infer<typeof s.deploymentListBody>,
    );
    api.get(
      '/api/deployments/:name',
      {
        schema: {
          summary: 'state, positions, pending intents, risk state and feed health',
          params: nameParams,
          response: { 200: s.deploymentDetailBody, ...refused },
        },
      },
      async (req, reply) => {
        const slot = slotOf(req, reply);
        return slot ? detailView(slot) : reply;
      },
    );
    api.get(
      '/api/deployments/:name/config',
      {
        schema: {
          summary: 'the effective configuration (YAML, defaults applied, secrets redacted)',
          params: nameParams,
          response: { 200: s.configBody, ...refused },
        },
      },
      async (req, reply) => {
        const slot = slotOf(req, reply);
        if (!slot) return reply;
        return { name: slot.name, file: slot.file, yaml: slot.effectiveConfig?.() ?? '' } satisfies z.infer<typeof s.configBody>;
      },
    );
    const paged = (url: string, summary: string, kinds: readonly DecisionEntry['kind'][]): void => {
      api.get(
        url,
        {
          schema: {
            summary,
            params: nameParams,
            querystring: s.pageQuery,
            response: { 200: s.pageBody, 400: answer(s.errorBody, 'a query parameter is out of range'), ...refused },
          },
        },
        async (req, reply) => {
          const slot = slotOf(req, reply);
          if (!slot) return reply;
          const q = req.query;
          return page(o.decisions.page({ after: q.after, limit: q.limit, deployment: slot.name, filter: (e) => kinds.includes(e.kind) }));
        },
      );
    };
    paged('/api/deployments/:name/fills', 'fills, oldest first, paged by sequence', ['fill']);
    paged('/api/deployments/:name/decisions', 'every evaluated decision (intents, denials with their code, fills, unfilled, manual), paged', [
      'intent',
      'denied',
      'fill',
      'unfilled',
      'manual',
    ]);
    api.get(
      '/api/deployments/:name/intents',
      {
        schema: {
          summary: 'pending intents with their journal state, and recent intent decisions',
          params: nameParams,
          response: { 200: s.intentsBody, ...refused },
        },
      },
      async (req, reply) => {
        const slot = slotOf(req, reply);
        if (!slot) return reply;
        const recent = o.decisions.recent({ limit: 50, deployment: slot.name, filter: (e) => e.kind === 'intent' || e.kind === 'unfilled' });
        return {
          pending: (slot.handle?.stats().pending ?? []).map(intentView),
          recent: page({ entries: recent, next: 0, truncated: false }).entries,
        } satisfies z.infer<typeof s.intentsBody>;
      },
    );
  };
}
