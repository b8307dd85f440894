/**
 * The dashboard on the daemon's control server, as fastify plugins whose routes declare their
 * own schemas and auth needs: the static page and its bundle at `/` and `/dashboard/` (declared
 * `config: { public: true }`: they carry no data, and they stay out of the OpenAPI document), the
 * stream resource (stream-routes.ts: the ticket and the Server-Sent Events stream) and the reports
 * resource (report-routes.ts). Tickets (tickets.ts) are shared: one bought for the stream also
 * opens a report.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { DaemonView } from '../service-port.js';
import type { StreamOptions } from './event-stream.js';
import { reportRoutes } from './report-routes.js';
import { streamRoutes } from './stream-routes.js';
import { createTickets } from './tickets.js';

/** The committed bundle built by `npm run build:dashboard` from `src/service/dashboard/ui/`. */
export const DASHBOARD_ASSETS_DIR = fileURLToPath(new URL('../../../assets/dashboard/', import.meta.url));

export interface DashboardOptions {
  /** Directory of backtest reports (`--reports-dir`); absent: the reports list is empty. */
  readonly reportsDir?: string;
  /** How long a stream ticket is valid (default 30 s). */
  readonly ticketTtlMs?: number;
  readonly stream?: StreamOptions;
  readonly now?: () => number;
  /** Where the bundle is (default {@link DASHBOARD_ASSETS_DIR}). */
  readonly assetsDir?: string;
}

export interface Dashboard {
  /** The routes over one daemon's view; pass to `startDaemon({ plugins: [dashboard.plugin] })`. */
  readonly plugin: (daemon: DaemonView) => FastifyPluginAsync;
  /** Open streams (tests, metrics). */
  readonly openStreams: () => number;
  /** Random id of this daemon run (SSE ids, notification idempotency keys). */
  readonly boot: string;
}

const ASSETS: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Builds the dashboard's routes for one daemon run (one boot id, one ticket table). */
export function createDashboard(o: DashboardOptions = {}): Dashboard {
  const tickets = createTickets({ ttlMs: o.ticketTtlMs ?? 30_000, now: o.now ?? Date.now });
  const streams = new Set<() => void>();
  const boot = randomBytes(8).toString('hex');
  const assets = assetRoutes(o.assetsDir ?? DASHBOARD_ASSETS_DIR);
  const reports = reportRoutes({ reportsDir: o.reportsDir, tickets });
  return {
    openStreams: () => streams.size,
    boot,
    plugin: (daemon) => async (app) => {
      await app.register(assets);
      await app.register(streamRoutes({ daemon, tickets, boot, streams, ...(o.stream ? { stream: o.stream } : {}) }));
      await app.register(reports);
    },
  };
}

/** The page and its bundle, read from `assetsDir` at each request (public: they carry no data). */
function assetRoutes(assetsDir: string): FastifyPluginAsync {
  return async (app) => {
    const asset = (name: string) => async (_req: unknown, reply: FastifyReply) => {
      const file = `${assetsDir}${name}`;
      if (!existsSync(file))
        return reply
          .code(404)
          .send({ error: { code: 'RUNTIME_DAEMON_BAD_CONFIG', message: `dashboard asset ${name} is missing: run npm run build:dashboard` } });
      return reply
        .header('content-type', ASSETS[name] ?? 'application/octet-stream')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', CSP)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .send(readFileSync(file));
    };
    const assetRoute = { config: { public: true }, schema: { hide: true } };
    app.get('/', assetRoute, asset('index.html'));
    for (const name of Object.keys(ASSETS)) app.get(`/dashboard/${name}`, assetRoute, asset(name));
  };
}
