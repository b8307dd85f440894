/** A real node:http server on 127.0.0.1 (ephemeral port) that records every request it gets. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, TimerHandle, UnixMs } from '../../../src/core/index.js';

export interface RecordedRequest {
  readonly method: string;
  /** Path with query string, as received. */
  readonly url: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Client-side port of the socket, to observe keep-alive reuse. */
  readonly remotePort: number | undefined;
}

export type Handler = (req: RecordedRequest, res: ServerResponse, index: number) => void;

export interface TestServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a server; `handler` answers each request (index counts from 0). */
export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const rec: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: u.pathname,
        query: u.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
      };
      requests.push(rec);
      handler(rec, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends `body` as JSON with `status` and extra headers. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Sends raw text. */
export function sendText(res: ServerResponse, status: number, text: string, contentType = 'text/html'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A clock whose timers fire on the next macrotask while time jumps forward by their delay: backoff
 * waits cost nothing in tests, and the delays asked for are recorded.
 */
export interface JumpClock extends Clock {
  readonly delays: number[];
}

export function jumpClock(start = 1_700_000_000_000): JumpClock {
  let now = start;
  let id = 0;
  const cancelled = new Set<number>();
  const delays: number[] = [];
  return {
    delays,
    now: () => now as UnixMs,
    setTimeout(fn, delayMs): TimerHandle {
      const handle = { id: ++id };
      delays.push(delayMs);
      setImmediate(() => {
        if (cancelled.has(handle.id)) return;
        now += delayMs;
        fn();
      });
      return handle;
    },
    clearTimeout(h) {
      cancelled.add(h.id);
    },
  };
}
