/**
 * The daemon's control plane as a fastify app, built by a function and not listening (the daemon
 * or a test calls `listen` / `inject`): health and readiness probes, Prometheus metrics, the
 * token-guarded JSON API and reload. Every route needs `Authorization: Bearer <token>`, compared in
 * constant time (the token is never logged), unless it declares `config: { public: true }` (the
 * probes, and the plugins' routes that carry no data or take a ticket). Each route declares its
 * zod schemas; requests are validated by them and `/api/openapi.json` is generated from them.
 *
 * The routes are fastify plugins, one per resource (`control/`): the daemon itself (probes,
 * metrics, the document, reload), the deployments, and the positions and manual actions; then the
 * plugins the daemon composes in (the dashboard's page, stream and reports).
 */
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { describeError, isChainpilotError, type Clock, type Logger } from '../../core/index.js';
import type { DecisionEntry } from '../../runtime/handle/deployment-handle.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import type { EventLog } from '../event-log.js';
import { bearerMatches } from './bearer.js';
import { registerOpenApi } from './openapi.js';
import type { ReloadDiff, Supervisor } from './supervisor.js';
import { actionRoutes } from './control/action-routes.js';
import { adminRoutes } from './control/admin-routes.js';
import { deploymentRoutes } from './control/deployment-routes.js';
import { sendError } from './control/replies.js';

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

export { bearerMatches };

export function buildControlApp(o: ControlAppOptions): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  registerOpenApi(app, o.version);

  app.addHook('onRequest', async (req, reply) => {
    // A route declares that it carries no data (or takes a ticket instead) with `config: { public: true }`.
    if (req.routeOptions.config.public === true) return;
    if (!bearerMatches(req.headers.authorization, o.token)) {
      await sendError(reply, 401, 'RUNTIME_API_UNAUTHORIZED', 'missing or wrong bearer token: send Authorization: Bearer <CHAINPILOT_API_TOKEN>');
    }
  });
  app.setErrorHandler((e, _req, reply) => {
    if (hasZodFastifySchemaValidationErrors(e)) {
      const where = e.validationContext ?? 'body';
      return sendError(
        reply,
        400,
        'RUNTIME_API_BAD_REQUEST',
        e.validation.map((i) => `${i.instancePath.slice(1).replaceAll('/', '.') || where}: ${i.message ?? 'invalid'}`).join('; '),
      );
    }
    o.log.error({ err: describeError(e) }, 'control API request failed');
    const status = typeof (e as { statusCode?: unknown }).statusCode === 'number' ? (e as { statusCode: number }).statusCode : 500;
    void sendError(
      reply,
      status,
      isChainpilotError(e) ? e.code : status >= 500 ? 'RUNTIME_API_INTERNAL' : 'RUNTIME_API_BAD_REQUEST',
      status >= 500 ? 'internal error; see the daemon log' : (e as Error).message,
    );
  });

  // The control API's resources, in one context registered after the document generator so that it sees them.
  const resources = [adminRoutes(o), deploymentRoutes(o), actionRoutes(o)];
  void app.register(async (api) => {
    // A POST without a body is an empty object (fastify hands the validator `null`).
    api.addHook('preValidation', async (req) => {
      req.body ??= {};
    });
    for (const routes of resources) await api.register(routes);
  });
  for (const plugin of o.plugins ?? []) void app.register(plugin);
  return app;
}
