/**
 * The dashboard on the daemon's control server, as a fastify plugin whose routes declare their
 * own schemas and auth needs: the static page and its bundle at `/` and `/dashboard/` (declared
 * `config: { public: true }`: they carry no data, and they stay out of the OpenAPI document), a short-lived single-use stream ticket bought with
 * the bearer token (`POST /api/stream-ticket`), the Server-Sent Events stream that takes the
 * ticket (`GET /api/stream?ticket=`; EventSource cannot send an Authorization header, and the
 * token itself never goes into a URL), and the backtest reports (`GET /api/reports` with the
 * bearer token, `GET /api/reports/open?path=&ticket=` with a ticket). The two ticket routes are
 * public to the token check and check the ticket themselves.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import * as s from '../api-schemas.js';
import type { DaemonView } from '../service-port.js';
import { serveEventStream, type StreamOptions } from './event-stream.js';
import { listReports, readReport } from './reports.js';

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

const ticketRefused = s.errorBody.describe('missing, used or expired ticket');
const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Builds the dashboard's routes for one daemon run (one boot id, one ticket table). */
export function createDashboard(o: DashboardOptions = {}): Dashboard {
  const now = o.now ?? Date.now;
  const ttlMs = o.ticketTtlMs ?? 30_000;
  const tickets = new Map<string, number>();
  const streams = new Set<() => void>();
  const boot = randomBytes(8).toString('hex');
  const assetsDir = o.assetsDir ?? DASHBOARD_ASSETS_DIR;

  const takeTicket = (ticket: string): boolean => {
    const t = now();
    for (const [k, exp] of tickets) if (exp <= t) tickets.delete(k);
    const given = Buffer.from(ticket);
    for (const [k] of tickets) {
      const want = Buffer.from(k);
      if (want.length === given.length && timingSafeEqual(want, given)) {
        tickets.delete(k);
        return true;
      }
    }
    return false;
  };

  return {
    openStreams: () => streams.size,
    boot,
    plugin: (daemon) => async (plain) => {
      const app = plain.withTypeProvider<ZodTypeProvider>();
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

      const ticketBody = z.object({ ticket: z.string(), expiresInMs: z.number().int() });
      const ticketSummary = 'a single-use ticket (30 s) for /api/stream or /api/reports/open, which a browser cannot send a bearer token to';
      app.post('/api/stream-ticket', { schema: { summary: ticketSummary, response: { 200: ticketBody, 401: s.errorBody } } }, async () => {
        if (tickets.size > 1_000) tickets.clear();
        const ticket = randomBytes(24).toString('hex');
        tickets.set(ticket, now() + ttlMs);
        return { ticket, expiresInMs: ttlMs };
      });
      const streamQuery = z.object({
        ticket: z.string().optional().describe('from POST /api/stream-ticket; required (401 without it)'),
        lastEventId: z.string().optional().describe('resume after this id (or send the Last-Event-ID header)'),
      });
      const streamSchema = {
        summary: 'Server-Sent Events of the dashboard (snapshot, decision, event, status); resumes from Last-Event-ID',
        querystring: streamQuery,
        response: { 200: { description: 'event stream', content: { 'text/event-stream': { schema: z.string() } } }, 401: ticketRefused },
      };
      app.get('/api/stream', { config: { public: true }, schema: streamSchema }, async (req, reply) => {
        const q = req.query;
        if (q.ticket === undefined || !takeTicket(q.ticket)) {
          return reply.code(401).send({
            error: { code: 'CLI_API_REFUSED', message: 'missing, used or expired stream ticket: POST /api/stream-ticket with the bearer token first' },
          });
        }
        const header = req.headers['last-event-id'];
        const last = typeof header === 'string' ? header : typeof q.lastEventId === 'string' && q.lastEventId !== '' ? q.lastEventId : undefined;
        reply.hijack();
        const close = serveEventStream(
          reply.raw,
          { boot, decisions: daemon.decisions, events: daemon.events, slots: () => daemon.supervisor.list() },
          last,
          o.stream,
        );
        streams.add(close);
        reply.raw.on('close', () => streams.delete(close));
        return reply;
      });
      // Open streams would keep the server from closing: end them first.
      app.addHook('preClose', async () => {
        for (const close of [...streams]) close();
      });

      const reportsSchema = {
        summary: 'backtest and sweep reports in --reports-dir',
        response: {
          200: z.object({
            reports: z.array(
              z.object({
                path: z.string().describe('relative, with / separators; pass to /api/reports/open'),
                sizeBytes: z.number().int(),
                modifiedAt: z.number().int().describe('Unix milliseconds'),
              }),
            ),
          }),
          401: s.errorBody,
        },
      };
      app.get('/api/reports', { schema: reportsSchema }, async () => ({ reports: o.reportsDir ? listReports(o.reportsDir) : [] }));
      // Opened in a new tab (a navigation cannot send the bearer token): a ticket again, and the
      // report runs sandboxed in an opaque origin so that its scripts cannot read the page's token.
      const openSchema = {
        summary: 'one report page, sandboxed (opened in a new tab with a ticket)',
        querystring: z.object({
          path: z.string().optional().describe('as GET /api/reports lists it'),
          ticket: z.string().optional().describe('from POST /api/stream-ticket; required (401 without it)'),
        }),
        response: { 200: html('the report'), 401: ticketRefused, 404: s.errorBody.describe('no such report') },
      };
      app.get('/api/reports/open', { config: { public: true }, schema: openSchema }, async (req, reply) => {
        const { path, ticket } = req.query;
        if (ticket === undefined || !takeTicket(ticket)) {
          return reply
            .code(401)
            .send({ error: { code: 'CLI_API_REFUSED', message: 'missing, used or expired ticket: POST /api/stream-ticket with the bearer token first' } });
        }
        const body = o.reportsDir && path !== undefined ? readReport(o.reportsDir, path) : undefined;
        if (!body) return reply.code(404).send({ error: { code: 'CLI_API_REFUSED', message: 'no such report: GET /api/reports lists them' } });
        return reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('content-security-policy', 'sandbox allow-scripts')
          .header('x-content-type-options', 'nosniff')
          .header('referrer-policy', 'no-referrer')
          .send(body.toString('utf8'));
      });
    },
  };
}
