/**
 * The daemon's control plane as a fastify app, built by a function and not listening (the daemon
 * or a test calls `listen` / `inject`): health and readiness probes, Prometheus metrics, the
 * token-guarded JSON API and reload. Every route but `/healthz` and `/readyz` (and the static
 * dashboard assets registered by `extraRoutes`, which carry no data) needs `Authorization: Bearer
 * <token>`, compared in constant time; the token is never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { describeError, isChainpilotError, type Clock, type Logger } from '../../core/index.js';
import type { DecisionEntry, ManualAction, ManualMeta } from '../../runtime/deployment-handle.js';
import { manualOnDeployment, switchDeployment, type SwitchVerb } from '../operator-actions.js';
import * as s from '../api-schemas.js';
import { detailView, intentView, summaryView } from '../api-views.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import type { EventLog, LoggedEntry } from '../event-log.js';
import { openApiDocument } from './openapi.js';
import type { ReloadDiff, Supervisor } from './supervisor.js';

export interface ControlAppOptions {
  readonly supervisor: Pick<Supervisor, 'list' | 'get'>;
  readonly decisions: EventLog<DecisionEntry>;
  readonly metrics: DaemonMetrics;
  readonly reload: () => Promise<ReloadDiff>;
  readonly token: string;
  readonly version: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** Why the daemon as a whole is not ready (memory near its ceiling); empty when it is. */
  readonly daemonReasons?: () => readonly string[];
  /** Paths served without the token (static dashboard assets). */
  readonly publicPrefixes?: readonly string[];
  /** More routes on the same app (dashboard, SSE). */
  readonly extraRoutes?: (app: FastifyInstance) => void;
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
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  const startedAt = o.clock.now();
  const open = new Set(['/healthz', '/readyz']);
  const publicPrefixes = o.publicPrefixes ?? [];
  const isPublic = (url: string): boolean => {
    const path = url.split('?')[0] ?? url;
    return open.has(path) || publicPrefixes.some((p) => path === p || (p.endsWith('/') && p !== '/' && path.startsWith(p)));
  };

  app.addHook('onRequest', async (req, reply) => {
    // A route declares that it carries no data with `config: { public: true }`.
    if ((req.routeOptions.config as { public?: boolean } | undefined)?.public === true || isPublic(req.url)) return;
    if (!bearerMatches(req.headers.authorization, o.token)) {
      await error(reply, 401, 'CLI_API_REFUSED', 'missing or wrong bearer token: send Authorization: Bearer <CHAINPILOT_API_TOKEN>');
    }
  });
  app.setErrorHandler((e, _req, reply) => {
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
  const parseOr400 = <T extends z.ZodType>(schema: T, value: unknown, reply: FastifyReply): z.infer<T> | undefined => {
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    void error(reply, 400, 'CLI_API_REFUSED', r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
    return undefined;
  };

  // Browsers ask for it on every page; no icon, and no 401 in the console.
  app.get('/favicon.ico', { config: { public: true } }, async (_req, reply) => reply.code(204).send());
  app.get('/healthz', async () => ({ status: 'ok' as const, uptimeSeconds: Math.max(0, o.clock.now() - startedAt) / 1000 }));
  app.get('/readyz', async (_req, reply) => {
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
  });
  app.get('/metrics', async (_req, reply) => reply.header('content-type', o.metrics.contentType).send(await o.metrics.render()));
  const doc = openApiDocument(o.version);
  app.get('/api/openapi.json', async () => doc);
  app.get('/api/deployments', async () => ({ deployments: o.supervisor.list().map(summaryView) }) satisfies z.infer<typeof s.deploymentListBody>);
  app.get('/api/deployments/:name', async (req, reply) => {
    const slot = slotOr404(req, reply);
    return slot ? detailView(slot) : reply;
  });
  app.get('/api/deployments/:name/config', async (req, reply) => {
    const slot = slotOr404(req, reply);
    if (!slot) return reply;
    return { name: slot.name, file: slot.file, yaml: slot.effectiveConfig?.() ?? '' } satisfies z.infer<typeof s.configBody>;
  });
  const pagedKinds = (kinds: readonly DecisionEntry['kind'][]) => async (req: FastifyRequest, reply: FastifyReply) => {
    const slot = slotOr404(req, reply);
    if (!slot) return reply;
    const q = parseOr400(s.pageQuery, req.query, reply);
    if (!q) return reply;
    return page(o.decisions.page({ after: q.after, limit: q.limit, deployment: slot.name, filter: (e) => kinds.includes(e.kind) }));
  };
  app.get('/api/deployments/:name/fills', pagedKinds(['fill']));
  app.get('/api/deployments/:name/decisions', pagedKinds(['intent', 'denied', 'fill', 'unfilled', 'manual']));
  app.get('/api/deployments/:name/intents', async (req, reply) => {
    const slot = slotOr404(req, reply);
    if (!slot) return reply;
    const recent = o.decisions.recent({ limit: 50, deployment: slot.name, filter: (e) => e.kind === 'intent' || e.kind === 'unfilled' });
    return {
      pending: (slot.handle?.stats().pending ?? []).map(intentView),
      recent: page({ entries: recent, next: 0, truncated: false }).entries,
    } satisfies z.infer<typeof s.intentsBody>;
  });
  const act = (verb: SwitchVerb) => async (req: FastifyRequest, reply: FastifyReply) => {
    const slot = slotOr404(req, reply);
    if (!slot) return reply;
    const body = parseOr400(s.actionBody, req.body ?? {}, reply);
    if (!body) return reply;
    const r = await switchDeployment(slot, verb, body.reason);
    if (!r.ok) return error(reply, r.status, r.code, r.message);
    o.log.warn({ deployment: slot.name, action: verb }, 'operator action');
    const after = o.supervisor.get(slot.name);
    return { name: slot.name, state: after?.state ?? slot.state, killed: after?.handle?.stats().risk.killed ?? null } satisfies z.infer<
      typeof s.actionResultBody
    >;
  };
  for (const verb of ['pause', 'resume', 'kill', 'unkill'] as const) app.post(`/api/deployments/:name/${verb}`, act(verb));
  const manual =
    <T extends z.ZodType>(schema: T, toAction: (body: z.infer<T>, req: FastifyRequest) => ManualAction, meta: (body: z.infer<T>) => ManualMeta) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      const slot = slotOr404(req, reply);
      if (!slot) return reply;
      const body = parseOr400(schema, req.body ?? {}, reply);
      if (body === undefined) return reply;
      const action = toAction(body, req);
      const r = manualOnDeployment(slot, action, meta(body));
      if (!r.ok) return error(reply, r.status, r.code, r.message);
      return { name: slot.name, action: action.action, intentId: r.value.intentId } satisfies z.infer<typeof s.manualResultBody>;
    };
  const metaOf = (b: { by?: string | undefined; reason?: string | undefined }): ManualMeta => ({ by: b.by ?? 'api', why: b.reason ?? 'no reason given' });
  app.post(
    '/api/deployments/:name/positions/close',
    manual(s.closeBody, (b) => ({ action: 'close', mint: b.mint, strategyId: b.strategyId, fractionBps: b.fractionBps }), metaOf),
  );
  app.post(
    '/api/deployments/:name/entries',
    manual(s.enterBody, (b) => ({ action: 'enter', mint: b.mint, strategyId: b.strategyId, spendLamports: BigInt(b.spendLamports) }), metaOf),
  );
  app.post(
    '/api/deployments/:name/intents/:id/cancel',
    manual(s.cancelBody, (_b, req) => ({ action: 'cancel', intentId: (req.params as { id?: string }).id ?? '' }), metaOf),
  );
  app.post('/api/reload', async (_req, reply) => {
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
  });
  o.extraRoutes?.(app);
  return app;
}
