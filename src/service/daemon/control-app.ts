/**
 * The daemon's control plane as a fastify app, built by a function and not listening (the daemon
 * or a test calls `listen` / `inject`): health and readiness probes, Prometheus metrics, the
 * token-guarded JSON API and reload. Every route needs `Authorization: Bearer <token>`, compared in
 * constant time (the token is never logged), unless it declares `config: { public: true }` (the
 * probes, and the plugins' routes that carry no data or take a ticket). Each route declares its
 * zod schemas; requests are validated by them and `/api/openapi.json` is generated from them.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describeError, isChainpilotError, type Clock, type Logger } from '../../core/index.js';
import type { DecisionEntry, ManualAction, ManualMeta } from '../../runtime/handle/deployment-handle.js';
import { manualOnDeployment, switchDeployment, type SwitchVerb } from '../operator-actions.js';
import * as s from '../api-schemas.js';
import { createSummaryCache, detailView, intentView } from '../api-views.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import type { EventLog, LoggedEntry } from '../event-log.js';
import { answer, nameParams, refused, registerOpenApi, textAnswer } from './openapi.js';
import type { ReloadDiff, Supervisor } from './supervisor.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route carries no data (or checks a ticket itself): no bearer token asked. */
    public?: boolean;
  }
}

export interface ControlAppOptions {
  readonly supervisor: Pick<Supervisor, 'list' | 'get'>;
  readonly decisions: EventLog<DecisionEntry>;
  readonly metrics: DaemonMetrics;
  readonly reload: () => Promise<ReloadDiff>;
  readonly token: string;
  readonly version: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** More routes on the same app (the dashboard), registered after the control API's. */
  readonly plugins?: readonly FastifyPluginAsync[];
  /** Why the daemon as a whole is not ready (memory near its ceiling); empty when it is. */
  readonly daemonReasons?: () => readonly string[];
  /** How old a row of `/api/deployments` may be when its slot did not change (wall ms, default 0: rebuilt per request). */
  readonly listMaxAgeMs?: number;
}

const digest = (v: string): Buffer => createHash('sha256').update(v).digest();

/** Constant-time check of an `Authorization` header against `token`. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = header === undefined ? null : /^Bearer (.+)$/.exec(header);
  return timingSafeEqual(digest(m?.[1] ?? ''), digest(token)) && m !== null;
}

const error = (reply: FastifyReply, status: number, code: string, message: string): FastifyReply =>
  reply.code(status).send({ error: { code, message } } satisfies z.infer<typeof s.errorBody>);

const page = (p: { entries: readonly LoggedEntry<DecisionEntry>[]; next: number; truncated: boolean }): z.infer<typeof s.pageBody> => ({
  entries: p.entries.map((e) => ({ seq: e.seq, deployment: e.deployment, entry: { ...e.value } })),
  next: p.next,
  truncated: p.truncated,
});

export function buildControlApp(o: ControlAppOptions): FastifyInstance {
  const summaries = createSummaryCache({ maxAgeMs: o.listMaxAgeMs ?? 0 });
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  const startedAt = o.clock.now();
  registerOpenApi(app, o.version);

  app.addHook('onRequest', async (req, reply) => {
    // A route declares that it carries no data (or takes a ticket instead) with `config: { public: true }`.
    if (req.routeOptions.config.public === true) return;
    if (!bearerMatches(req.headers.authorization, o.token)) {
      await error(reply, 401, 'CLI_API_REFUSED', 'missing or wrong bearer token: send Authorization: Bearer <CHAINPILOT_API_TOKEN>');
    }
  });
  app.setErrorHandler((e, _req, reply) => {
    if (hasZodFastifySchemaValidationErrors(e)) {
      const where = e.validationContext ?? 'body';
      return error(
        reply,
        400,
        'CLI_API_REFUSED',
        e.validation.map((i) => `${i.instancePath.slice(1).replaceAll('/', '.') || where}: ${i.message ?? 'invalid'}`).join('; '),
      );
    }
    o.log.error({ err: describeError(e) }, 'control API request failed');
    const status = typeof (e as { statusCode?: unknown }).statusCode === 'number' ? (e as { statusCode: number }).statusCode : 500;
    void error(
      reply,
      status,
      isChainpilotError(e) ? e.code : 'RUNTIME_DAEMON_BAD_CONFIG',
      status >= 500 ? 'internal error; see the daemon log' : (e as Error).message,
    );
  });

  const slotOr404 = (req: FastifyRequest, reply: FastifyReply) => {
    const name = (req.params as { name?: string }).name ?? '';
    const slot = o.supervisor.get(name);
    if (!slot) void error(reply, 404, 'CLI_API_REFUSED', `no deployment named "${name}"; GET /api/deployments lists them`);
    return slot;
  };

  // The control API's routes, in a plugin registered after the document generator so that it sees them.
  void app.register(async (plain) => {
    const api = plain.withTypeProvider<ZodTypeProvider>();
    // A POST without a body is an empty object (fastify hands the validator `null`).
    api.addHook('preValidation', async (req) => {
      req.body ??= {};
    });
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
    api.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
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
        const slot = slotOr404(req, reply);
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
        const slot = slotOr404(req, reply);
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
          const slot = slotOr404(req, reply);
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
        const slot = slotOr404(req, reply);
        if (!slot) return reply;
        const recent = o.decisions.recent({ limit: 50, deployment: slot.name, filter: (e) => e.kind === 'intent' || e.kind === 'unfilled' });
        return {
          pending: (slot.handle?.stats().pending ?? []).map(intentView),
          recent: page({ entries: recent, next: 0, truncated: false }).entries,
        } satisfies z.infer<typeof s.intentsBody>;
      },
    );
    const switches: Record<SwitchVerb, string> = {
      pause: 'pause entries (exits keep working)',
      resume: 'resume entries',
      kill: 'kill switch on: no new buys (persisted for live deployments)',
      unkill: 'kill switch off (persisted for live deployments)',
    };
    for (const verb of ['pause', 'resume', 'kill', 'unkill'] as const) {
      api.post(
        `/api/deployments/:name/${verb}`,
        { schema: { summary: switches[verb], params: nameParams, body: s.actionBody, response: { 200: s.actionResultBody, ...refused } } },
        async (req, reply) => {
          const slot = slotOr404(req, reply);
          if (!slot) return reply;
          const r = await switchDeployment(slot, verb, req.body.reason);
          if (!r.ok) return error(reply, r.status, r.code, r.message);
          o.log.warn({ deployment: slot.name, action: verb }, 'operator action');
          const after = o.supervisor.get(slot.name);
          return { name: slot.name, state: after?.state ?? slot.state, killed: after?.handle?.stats().risk.killed ?? null } satisfies z.infer<
            typeof s.actionResultBody
          >;
        },
      );
    }
    const manualAnswers = {
      200: answer(s.manualResultBody, 'placed (close, enter) or cancelled'),
      409: answer(s.errorBody, 'denied by the admission check or the risk gate, or refused (ENGINE_MANUAL_REFUSED), with the code'),
      400: answer(s.errorBody, 'the body does not fit the schema'),
      ...refused,
    };
    const manual = async (req: FastifyRequest, reply: FastifyReply, action: ManualAction, b: { by?: string | undefined; reason?: string | undefined }) => {
      const slot = slotOr404(req, reply);
      if (!slot) return reply;
      const r = manualOnDeployment(slot, action, { by: b.by ?? 'api', why: b.reason ?? 'no reason given' } satisfies ManualMeta);
      if (!r.ok) return error(reply, r.status, r.code, r.message);
      return { name: slot.name, action: action.action, intentId: r.value.intentId } satisfies z.infer<typeof s.manualResultBody>;
    };
    api.post(
      '/api/deployments/:name/positions/close',
      {
        schema: {
          summary: 'sell a position, all of it or a share (fractionBps); journaled as a manual decision',
          params: nameParams,
          body: s.closeBody,
          response: manualAnswers,
        },
      },
      async (req, reply) => {
        const b = req.body;
        return manual(req, reply, { action: 'close', mint: b.mint, strategyId: b.strategyId, fractionBps: b.fractionBps }, b);
      },
    );
    api.post(
      '/api/deployments/:name/entries',
      {
        schema: {
          summary: 'force a buy through the admission check and the risk gate; journaled as a manual decision',
          params: nameParams,
          body: s.enterBody,
          response: manualAnswers,
        },
      },
      async (req, reply) => {
        const b = req.body;
        return manual(req, reply, { action: 'enter', mint: b.mint, strategyId: b.strategyId, spendLamports: BigInt(b.spendLamports) }, b);
      },
    );
    api.post(
      '/api/deployments/:name/intents/:id/cancel',
      {
        schema: {
          summary: 'cancel an intent that has not left the process (paper: in its latency)',
          params: nameParams.extend({ id: z.string().describe('the intent id') }),
          body: s.cancelBody,
          response: manualAnswers,
        },
      },
      async (req, reply) => manual(req, reply, { action: 'cancel', intentId: req.params.id }, req.body),
    );
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
          if (isChainpilotError(e) && e.code === 'RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED') return error(reply, 409, e.code, e.message);
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
  });
  for (const plugin of o.plugins ?? []) void app.register(plugin);
  return app;
}
