/**
 * The swap service: POST /swap with the spec's body returns `{txn}`. Bad bodies get HTTP 400 with
 * `{error: {code, message}}` naming the field. The spec shows no authentication for this service,
 * so none is required.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError, isChainpilotError, type Logger } from '../../core/index.js';
import { listen, readBody, sendJson, type RunningServer } from '../rpc/http-util.js';
import type { createSwapBuilder } from './swap-builder.js';
import { parseSwapRequest } from './swap-request.js';

export interface SwapServerOptions {
  readonly host: string;
  readonly port?: number;
  readonly builder: ReturnType<typeof createSwapBuilder>;
  readonly log?: Logger;
}

/** Starts the swap server on an ephemeral port unless told. */
export async function startSwapServer(options: SwapServerOptions): Promise<RunningServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== '/swap') {
      sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${path}; use POST /swap` } });
      return;
    }
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'use POST /swap' } });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      sendJson(res, 400, { error: { code: 'LEDGER_INVALID_SWAP_REQUEST', message: `body: not valid JSON (${describeError(e)})` } });
      return;
    }
    try {
      const built = options.builder.build(parseSwapRequest(body));
      sendJson(res, 200, { txn: built.txn });
    } catch (e) {
      if (isChainpilotError(e)) {
        sendJson(res, 400, { error: { code: e.code, message: e.message } });
        return;
      }
      options.log?.error({ err: e }, 'swap build failed');
      sendJson(res, 500, { error: { code: 'SERVER_ERROR', message: 'Internal server error' } });
    }
  };
  return listen(options.host, options.port ?? 0, (req, res) => void handle(req, res), 'swap server');
}
