/**
 * The reports resource: the backtest and sweep reports in `--reports-dir` (`GET /api/reports`
 * with the bearer token), and one report opened in a new tab (`GET /api/reports/open?path=&ticket=`:
 * a navigation cannot send the token, so it takes a ticket, and the page runs sandboxed in an
 * opaque origin so that its scripts cannot read the dashboard's token).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import * as s from '../api-schemas.js';
import { listReports, readReport } from './reports.js';
import { ticketRefused, type Tickets } from './tickets.js';

export interface ReportRoutesOptions {
  /** Directory of backtest reports; absent: the list is empty. */
  readonly reportsDir?: string | undefined;
  readonly tickets: Tickets;
}

const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

export function reportRoutes(o: ReportRoutesOptions): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
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
      if (ticket === undefined || !o.tickets.take(ticket)) {
        return reply.code(401).send({
          error: { code: 'RUNTIME_API_UNAUTHORIZED', message: 'missing, used or expired ticket: POST /api/stream-ticket with the bearer token first' },
        });
      }
      const body = o.reportsDir && path !== undefined ? readReport(o.reportsDir, path) : undefined;
      if (!body) return reply.code(404).send({ error: { code: 'RUNTIME_API_NOT_FOUND', message: 'no such report: GET /api/reports lists them' } });
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', 'sandbox allow-scripts')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .send(body.toString('utf8'));
    });
  };
}
