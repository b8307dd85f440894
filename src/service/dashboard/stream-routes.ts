/**
 * The stream resource: a short-lived single-use ticket bought with the bearer token
 * (`POST /api/stream-ticket`; it also opens a report), and the Server-Sent Events stream that takes
 * it (`GET /api/stream?ticket=`; EventSource cannot send an Authorization header, and the token
 * itself never goes into a URL). The stream route is public to the token check and checks the
 * ticket itself.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import * as s from '../api-schemas.js';
import type { DaemonView } from '../service-port.js';
import { serveEventStream, type StreamOptions } from './event-stream.js';
import { ticketRefused, type Tickets } from './tickets.js';

export interface StreamRoutesOptions {
  readonly daemon: DaemonView;
  readonly tickets: Tickets;
  /** Random id of this daemon run (SSE ids). */
  readonly boot: string;
  /** The open streams' closers: added while a stream is open, all closed before the server closes. */
  readonly streams: Set<() => void>;
  readonly stream?: StreamOptions;
}

export function streamRoutes(o: StreamRoutesOptions): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<ZodTypeProvider>();
    const ticketBody = z.object({ ticket: z.string(), expiresInMs: z.number().int() });
    const ticketSummary = 'a single-use ticket (30 s) for /api/stream or /api/reports/open, which a browser cannot send a bearer token to';
    app.post('/api/stream-ticket', { schema: { summary: ticketSummary, response: { 200: ticketBody, 401: s.errorBody } } }, async () => ({
      ticket: o.tickets.issue(),
      expiresInMs: o.tickets.ttlMs,
    }));
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
      if (q.ticket === undefined || !o.tickets.take(q.ticket)) {
        return reply.code(401).send({
          error: { code: 'RUNTIME_API_UNAUTHORIZED', message: 'missing, used or expired stream ticket: POST /api/stream-ticket with the bearer token first' },
        });
      }
      const header = req.headers['last-event-id'];
      const last = typeof header === 'string' ? header : typeof q.lastEventId === 'string' && q.lastEventId !== '' ? q.lastEventId : undefined;
      reply.hijack();
      const { daemon } = o;
      const close = serveEventStream(
        reply.raw,
        { boot: o.boot, decisions: daemon.decisions, events: daemon.events, slots: () => daemon.supervisor.list() },
        last,
        o.stream,
      );
      o.streams.add(close);
      reply.raw.on('close', () => o.streams.delete(close));
      return reply;
    });
    // Open streams would keep the server from closing: end them first.
    app.addHook('preClose', async () => {
      for (const close of [...o.streams]) close();
    });
  };
}
