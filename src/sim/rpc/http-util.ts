/**
 * Small helpers shared by the JSON-RPC and swap servers: bounded JSON body reading, JSON replies,
 * listening on an ephemeral port, and a stop that also ends kept-alive and hung connections.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainpilotError } from '../../core/index.js';

export const MAX_BODY_BYTES = 1_048_576;

/** Reads the request body as text, refusing more than `MAX_BODY_BYTES`. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY_BYTES)
      throw new ChainpilotError('SIM_REQUEST_TOO_LARGE', `request body is larger than ${MAX_BODY_BYTES} bytes; send a smaller request`, {
        retry: 'not_retryable',
        context: { maxBytes: MAX_BODY_BYTES },
      });
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export interface RunningServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Starts `handler` on `host`:`port` (0 = ephemeral). */
export async function listen(host: string, port: number, handler: (req: IncomingMessage, res: ServerResponse) => void, what: string): Promise<RunningServer> {
  const server = createServer(handler);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(
        new ChainpilotError('LEDGER_SERVER_START_FAILED', `${what} could not listen on ${host}:${port}: ${e.message}; pick another port or host`, {
          retry: 'not_retryable',
          cause: e,
        }),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${hostPart}:${bound}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
