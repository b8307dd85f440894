/** Helpers for simulator integration tests: a simulator on a manual clock, HTTP and WebSocket clients. */
import WebSocket from 'ws';
import { manualClock, type ManualClock, type UnixMs } from '../../src/core/index.js';
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../../src/sim/start-simulator.js';

export const T0 = 1_767_225_600_000 as UnixMs; // 2026-01-01T00:00:00Z
export const KEY = 'test-key-0123456789';

export interface TestSim {
  readonly sim: RunningSimulator;
  readonly clock: ManualClock;
}

export async function startTestSim(options: StartSimulatorOptions = {}): Promise<TestSim> {
  const clock = manualClock(T0);
  const sim = await startSimulator({ seed: 7, apiKey: KEY, clock, startAt: T0, ...options });
  return { sim, clock };
}

export interface HttpResult<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/** GET with the test key (`null`: no key header). */
export async function get<T = unknown>(url: string, key: string | null = KEY): Promise<HttpResult<T>> {
  const res = await fetch(url, { headers: key === null ? {} : { 'x-api-key': key } });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

export async function post<T = unknown>(url: string, body: unknown, key = KEY): Promise<HttpResult<T>> {
  const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

/** Polls `cond` on real time (for socket I/O only) until true or the timeout. */
export async function waitFor(cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('waitFor: condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface Frame {
  readonly type: string;
  readonly room?: string;
  readonly data?: unknown;
}

export interface StreamClient {
  readonly ws: WebSocket;
  /** Every text frame received, raw. */
  readonly raw: string[];
  /** Sync replies swallowed by `join` (they count in the server's framesSent). */
  readonly control: { pending: number; seen: number };
  /** Parsed `message` frames. */
  messages(room?: string): Frame[];
  join(...rooms: string[]): Promise<void>;
  /**
   * Resolves when the server answered a frame sent now. It reads frames in order and sends in
   * order, so whatever it sent before (pushes, replies to earlier frames) has arrived by then: the
   * proof for "nothing came". Not for a silenced socket, which gets no answer.
   */
  sync(): Promise<void>;
  leave(room: string): void;
  close(): Promise<void>;
}

/** Connects to `{datastream}/<key>`; answers pings unless `answerPings` is false. */
export async function connect(t: Pick<TestSim, 'sim'>, opts: { answerPings?: boolean; key?: string } = {}): Promise<StreamClient> {
  const ws = new WebSocket(`${t.sim.urls.datastream}/${opts.key ?? KEY}`);
  const raw: string[] = [];
  const control = { pending: 0, seen: 0 };
  ws.on('message', (d) => {
    const text = (d as Buffer).toString('utf8');
    if (control.pending > 0 && text.includes('"code":"INVALID_MESSAGE"')) {
      control.pending -= 1;
      control.seen += 1;
      return;
    }
    raw.push(text);
    if (opts.answerPings !== false && text === '{"type":"ping"}') ws.send('{"type":"pong"}');
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const parsed = (): Frame[] =>
    raw.flatMap((r) => {
      try {
        return [JSON.parse(r) as Frame];
      } catch {
        return [];
      }
    });
  const sync = async (): Promise<void> => {
    // The server handles frames in order: the error reply to a bogus frame proves the ones before are done.
    control.pending += 1;
    const target = control.seen + 1;
    ws.send('{"type":"sync"}');
    await waitFor(() => control.seen >= target);
  };
  return {
    ws,
    raw,
    messages: (room) => parsed().filter((f) => f.type === 'message' && (room === undefined || f.room === room)),
    async join(...rooms) {
      for (const room of rooms) ws.send(JSON.stringify({ type: 'join', room }));
      await sync();
    },
    sync,
    control,
    leave(room) {
      ws.send(JSON.stringify({ type: 'leave', room }));
    },
    async close() {
      if (ws.readyState === ws.CLOSED) return;
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        ws.close();
      });
    },
  };
}

/** Waits until every frame the server sent has arrived at `clients`. */
export async function drain(t: TestSim, clients: readonly StreamClient[]): Promise<void> {
  await waitFor(() => clients.reduce((a, c) => a + c.raw.length + c.control.seen, 0) >= t.sim.stats().framesSent);
}
