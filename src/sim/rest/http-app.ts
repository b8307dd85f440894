/**
 * The simulator's HTTP side on one port: token data API at `/`, prediction API under
 * `/prediction`, and the Datastream upgrade at `/datastream/<API_KEY>`. Auth and REST faults are
 * applied here, before any handler runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger, Random } from '../../core/index.js';
import { describeError } from '../../core/index.js';
import type { ResolvedFaults } from '../faults/fault-settings.js';
import type { MarketState } from '../model/market-state.js';
import type { DatastreamHub } from '../stream/datastream-hub.js';
import { RestError } from './rest-errors.js';
import type { RestRouter } from './rest-router.js';

export const PREDICTION_PREFIX = '/prediction';
export const DATASTREAM_PREFIX = '/datastream';
const MAX_BODY_BYTES = 1_000_000;

export interface HttpAppOptions {
  readonly state: MarketState;
  readonly apiKey: string;
  readonly base: RestRouter;
  readonly prediction: RestRouter;
  readonly hub: DatastreamHub;
  readonly faults: ResolvedFaults;
  readonly faultRandom: Random;
  readonly log: Logger;
}

export interface HttpApp {
  onRequest(req: IncomingMessage, res: ServerResponse): void;
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export function createHttpApp(o: HttpAppOptions): HttpApp {
  const sendError = (res: ServerResponse, prediction: boolean, status: number, code: string, message: string, headers: Record<string, string> = {}): void => {
    const body = prediction ? { code: status, error: message, errorCode: code } : { error: { code, message } };
    send(res, status, body, headers);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sim.local');
    const prediction = url.pathname === PREDICTION_PREFIX || url.pathname.startsWith(`${PREDICTION_PREFIX}/`);
    const path = prediction ? url.pathname.slice(PREDICTION_PREFIX.length) || '/' : url.pathname;
    if (req.headers['x-api-key'] !== o.apiKey) {
      sendError(res, prediction, 401, 'UNAUTHORIZED', 'missing or invalid x-api-key header; send the key the simulator printed');
      return;
    }
    const rest = o.faults.rest;
    if (rest.rateLimitShare > 0 && o.faultRandom.chance(rest.rateLimitShare)) {
      sendError(res, prediction, 429, 'RATE_LIMITED', 'too many requests; retry after the Retry-After delay', {
        'retry-after': String(rest.retryAfterSeconds),
      });
      return;
    }
    if (rest.serverErrorShare > 0 && o.faultRandom.chance(rest.serverErrorShare)) {
      sendError(res, prediction, o.faultRandom.chance(0.5) ? 500 : 503, 'SERVER_ERROR', 'Internal server error');
      return;
    }
    const method = req.method ?? 'GET';
    const hit = (prediction ? o.prediction : o.base).match(method, path);
    if (!hit) {
      sendError(res, prediction, 404, 'NOT_FOUND', `no route ${method} ${path}`);
      return;
    }
    const body = method === 'POST' ? await readJson(req) : undefined;
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const result = hit.handler({ method, params: hit.params, query, body, state: o.state });
    send(res, 200, result);
  };

  return {
    onRequest(req, res) {
      const prediction = (req.url ?? '').startsWith(PREDICTION_PREFIX);
      handle(req, res).catch((e: unknown) => {
        if (e instanceof RestError) sendError(res, prediction, e.status, e.code, e.message);
        else {
          o.log.error({ err: describeError(e) }, 'simulator REST handler failed');
          sendError(res, prediction, 500, 'SERVER_ERROR', 'Internal server error');
        }
      });
    },
    onUpgrade(req, socket, head) {
      const path = new URL(req.url ?? '/', 'http://sim.local').pathname;
      const key = path.startsWith(`${DATASTREAM_PREFIX}/`) ? path.slice(DATASTREAM_PREFIX.length + 1) : undefined;
      const refused = o.faults.stream.refuseKeyShare > 0 && o.faultRandom.chance(o.faults.stream.refuseKeyShare);
      if (key === undefined || decodeURIComponent(key) !== o.apiKey || refused) {
        socket.end(
          'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"error":{"code":"UNAUTHORIZED","message":"invalid Datastream key in the connection path"}}',
        );
        return;
      }
      o.hub.handleUpgrade(req, socket, head);
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY_BYTES) throw new RestError(413, 'PAYLOAD_TOO_LARGE', `request body over ${MAX_BODY_BYTES} bytes; send fewer items`);
    chunks.push(b);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RestError(400, 'INVALID_PARAMETER', 'body: not valid JSON; send a JSON body with content-type application/json');
  }
}
