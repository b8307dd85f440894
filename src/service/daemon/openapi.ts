/** The OpenAPI 3.1 document of the control API, generated from the zod schemas in api-schemas.ts. */
import { z } from 'zod';
import * as s from '../api-schemas.js';

type Schema = z.ZodType;
const json = (schema: Schema): Record<string, unknown> => z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' });
const ok = (schema: Schema, description = 'OK'): Record<string, unknown> => ({ description, content: { 'application/json': { schema: json(schema) } } });
const refused = { 401: ok(s.errorBody, 'missing or wrong bearer token'), 404: ok(s.errorBody, 'no such deployment') };
const name = { name: 'name', in: 'path', required: true, schema: { type: 'string' } };
const paging = [
  { name: 'after', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
  { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 } },
];
const action = (summary: string): Record<string, unknown> => ({
  post: {
    summary,
    parameters: [name],
    requestBody: { required: false, content: { 'application/json': { schema: json(s.actionBody) } } },
    responses: { 200: ok(s.actionResultBody), ...refused },
  },
});

const manual = (summary: string, body: Schema, extra: Record<string, unknown>[] = []): Record<string, unknown> => ({
  post: {
    summary,
    parameters: [name, ...extra],
    requestBody: { required: true, content: { 'application/json': { schema: json(body) } } },
    responses: {
      200: ok(s.manualResultBody, 'placed (close, enter) or cancelled'),
      409: ok(s.errorBody, 'denied by the admission check or the risk gate, or refused (ENGINE_MANUAL_REFUSED), with the code'),
      400: ok(s.errorBody, 'the body does not fit the schema'),
      ...refused,
    },
  },
});

/** Builds the document (cheap; built once per app). */
export function openApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'chainpilot daemon control API', version },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths: {
      '/healthz': { get: { summary: 'the process is up', security: [], responses: { 200: ok(s.healthBody) } } },
      '/readyz': {
        get: {
          summary: 'every deployment started, reconciled and its feed connected recently',
          security: [],
          responses: { 200: ok(s.readyBody), 503: ok(s.readyBody, 'not ready, with the reasons') },
        },
      },
      '/metrics': {
        get: { summary: 'Prometheus text format', responses: { 200: { description: 'metrics', content: { 'text/plain': { schema: { type: 'string' } } } } } },
      },
      '/api/deployments': { get: { summary: 'every deployment with its state', responses: { 200: ok(s.deploymentListBody), 401: refused[401] } } },
      '/api/deployments/{name}': {
        get: {
          summary: 'state, positions, pending intents, risk state and feed health',
          parameters: [name],
          responses: { 200: ok(s.deploymentDetailBody), ...refused },
        },
      },
      '/api/deployments/{name}/config': {
        get: {
          summary: 'the effective configuration (YAML, defaults applied, secrets redacted)',
          parameters: [name],
          responses: { 200: ok(s.configBody), ...refused },
        },
      },
      '/api/deployments/{name}/fills': {
        get: { summary: 'fills, oldest first, paged by sequence', parameters: [name, ...paging], responses: { 200: ok(s.pageBody), ...refused } },
      },
      '/api/deployments/{name}/decisions': {
        get: {
          summary: 'every evaluated decision (intents, denials with their code, fills, unfilled), paged',
          parameters: [name, ...paging],
          responses: { 200: ok(s.pageBody), ...refused },
        },
      },
      '/api/deployments/{name}/intents': {
        get: {
          summary: 'pending intents with their journal state, and recent intent decisions',
          parameters: [name],
          responses: { 200: ok(s.intentsBody), ...refused },
        },
      },
      '/api/deployments/{name}/pause': action('pause entries (exits keep working)'),
      '/api/deployments/{name}/resume': action('resume entries'),
      '/api/deployments/{name}/kill': action('kill switch on: no new buys (persisted for live deployments)'),
      '/api/deployments/{name}/unkill': action('kill switch off (persisted for live deployments)'),
      '/api/deployments/{name}/positions/close': manual('sell a position, all of it or a share (fractionBps); journaled as a manual decision', s.closeBody),
      '/api/deployments/{name}/entries': manual('force a buy through the admission check and the risk gate; journaled as a manual decision', s.enterBody),
      '/api/deployments/{name}/intents/{id}/cancel': manual('cancel an intent that has not left the process (paper: in its latency)', s.cancelBody, [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      ]),
      '/api/stream-ticket': {
        post: {
          summary: 'a single-use ticket (30 s) for /api/stream or /api/reports/open, which a browser cannot send a bearer token to',
          responses: { 200: ok(z.object({ ticket: z.string(), expiresInMs: z.number().int() })), 401: refused[401] },
        },
      },
      '/api/stream': {
        get: {
          summary: 'Server-Sent Events of the dashboard (snapshot, decision, event, status); resumes from Last-Event-ID',
          security: [],
          parameters: [
            { name: 'ticket', in: 'query', required: true, schema: { type: 'string' } },
            { name: 'lastEventId', in: 'query', required: false, schema: { type: 'string' } },
          ],
          responses: {
            200: { description: 'event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
            401: ok(s.errorBody, 'missing, used or expired ticket'),
          },
        },
      },
      '/api/reports': {
        get: {
          summary: 'backtest and sweep reports in --reports-dir',
          responses: { 200: ok(z.object({ reports: z.array(z.record(z.string(), z.unknown())) })), 401: refused[401] },
        },
      },
      '/api/reports/open': {
        get: {
          summary: 'one report page, sandboxed (opened in a new tab with a ticket)',
          security: [],
          parameters: [
            { name: 'path', in: 'query', required: true, schema: { type: 'string' } },
            { name: 'ticket', in: 'query', required: true, schema: { type: 'string' } },
          ],
          responses: {
            200: { description: 'the report', content: { 'text/html': { schema: { type: 'string' } } } },
            401: ok(s.errorBody, 'missing, used or expired ticket'),
            404: ok(s.errorBody, 'no such report'),
          },
        },
      },
      '/api/reload': {
        post: {
          summary: 're-read the deployment files and apply the difference',
          responses: {
            200: ok(s.reloadBody),
            401: refused[401],
            409: ok(s.errorBody, 'the new set cannot fit the memory limit (RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED); the running set is kept'),
          },
        },
      },
    },
  };
}
