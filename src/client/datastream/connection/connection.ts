/**
 * One WebSocket connection manager per endpoint: connect with a timeout, detect dead sockets by
 * liveness (no frame for `livenessTimeoutMs`), reconnect forever with capped exponential backoff and
 * full jitter, stop (circuit breaker) when the server refuses the key, and keep exactly one live
 * socket: a replaced socket loses every listener before it is terminated, and events of stale
 * sockets are ignored by generation. `close()` is final.
 */
import { openFrameSocket, type FrameSocket } from './frame-socket.js';
import { backoffWithJitter, ChainpilotError, type Clock, type Random, type TimerHandle, type UnixMs } from '../../../core/index.js';

export type ConnectionState = 'idle' | 'connecting' | 'open' | 'backoff' | 'stopped' | 'closed';

/** Why a socket went away. */
export type DownReason = 'server-closed' | 'error' | 'liveness' | 'connect-timeout' | 'auth-refused' | 'http-status';

export interface ConnectionOptions {
  /** Endpoint without the key, e.g. `wss://stream.example`. */
  readonly url: string;
  readonly apiKey: string;
  readonly clock: Clock;
  readonly random: Random;
  readonly connectTimeoutMs: number;
  readonly livenessTimeoutMs: number;
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
  /** A connection open at least this long resets the backoff and auth-failure counters. */
  readonly stableAfterMs: number;
  /** Consecutive auth refusals that trip the breaker. */
  readonly authFailureLimit: number;
  /** Largest message the socket takes; a larger one fails the connection with 1009. */
  readonly maxFrameBytes: number;
}

export interface ConnectionHandlers {
  open(): void;
  /**
   * One message's payload: bytes `[start, end)` of `buf` (fragments joined), valid during the call
   * only. Its UTF-8 is not validated by the socket: the handler must.
   */
  message(buf: Buffer, start: number, end: number, at: UnixMs): void;
  /** The socket read that carried the messages just passed to `message` is over: every one of them was handed over, all with one `at`. */
  readEnd(): void;
  /** A socket that had been open went away (a gap starts at `at`). */
  down(reason: DownReason, at: UnixMs): void;
  /** A connection attempt failed before opening. */
  attemptFailed(reason: DownReason, detail: string): void;
  /** The breaker tripped: no more reconnects. */
  stopped(error: ChainpilotError): void;
  /**
   * The server sent a message larger than `maxFrameBytes`, or in more frames than one message may
   * take (`fragments`); the socket closes and reconnects after backoff.
   */
  frameTooLarge(fragments?: boolean): void;
}

export interface Connection {
  readonly state: ConnectionState;
  start(): void;
  /** Sends a JSON frame when open; false otherwise. */
  send(frame: object): boolean;
  /** Runs `sends` so that the frames it sends leave in one socket write (a turn's room changes). */
  batch(sends: () => void): void;
  /** Marks the current connection as refused by the server (an auth error frame); applied on close. */
  noteAuthError(): void;
  /** Forces the current socket closed and reconnects (as if it died). */
  recycle(reason: DownReason): void;
  /** Final: closes the socket, cancels timers, never reconnects. */
  close(): void;
  /** Sockets created and not yet released (0 or 1 by construction). */
  readonly liveSockets: number;
}

const AUTH_CLOSE_CODES = new Set([1008, 4001, 4003, 4401, 4403]);

export function createConnection(o: ConnectionOptions, h: ConnectionHandlers): Connection {
  let state: ConnectionState = 'idle';
  let ws: FrameSocket | undefined;
  let gen = 0;
  let attempt = 0;
  let authFailures = 0;
  let openedAt = 0;
  let lastFrameAt = 0;
  let httpStatus: number | undefined;
  let authHint = false;
  let connectTimer: TimerHandle | undefined;
  let livenessTimer: TimerHandle | undefined;
  let backoffTimer: TimerHandle | undefined;
  let liveSockets = 0;
  // one clock reading per socket read: the socket passes every message of a read synchronously, so they share it
  let readAt: UnixMs | undefined;
  const endRead = (): void => {
    readAt = undefined;
    h.readEnd();
  };
  const clock = o.clock;
  const endpoint = `${o.url.replace(/\/+$/, '')}/${encodeURIComponent(o.apiKey)}`;

  const clearTimers = (): void => {
    if (connectTimer) clock.clearTimeout(connectTimer);
    if (livenessTimer) clock.clearTimeout(livenessTimer);
    connectTimer = livenessTimer = undefined;
  };

  /** Detaches first (no stale event can reach us), then ends the socket: gracefully only on close(). */
  const release = (sock: FrameSocket, graceful: boolean): void => {
    sock.detach();
    if (graceful && sock.isOpen) sock.close(1000, 'client closed');
    else sock.terminate(); // a dead or silent peer would hold a graceful close for the socket's close wait
    liveSockets--;
  };

  const checkLiveness = (): void => {
    livenessTimer = undefined;
    if (state !== 'open') return;
    const idle = clock.now() - lastFrameAt;
    if (idle >= o.livenessTimeoutMs) {
      lose('liveness', `no frame for ${idle} ms`);
      return;
    }
    livenessTimer = clock.setTimeout(checkLiveness, Math.max(1, Math.min(o.livenessTimeoutMs - idle, Math.ceil(o.livenessTimeoutMs / 4))));
  };

  const isAuthRefusal = (code: number | undefined): boolean =>
    httpStatus === 401 || httpStatus === 403 || (code !== undefined && AUTH_CLOSE_CODES.has(code)) || authHint;

  /** The current socket is gone (or being replaced): release it and decide what comes next. */
  const lose = (reason: DownReason, detail: string, closeCode?: number): void => {
    const sock = ws;
    const wasOpen = state === 'open';
    const at = clock.now();
    ws = undefined;
    gen++;
    clearTimers();
    if (sock) release(sock, false);
    state = 'backoff'; // what listeners see from here on; 'stopped' below if the breaker trips
    if (wasOpen && at - openedAt >= o.stableAfterMs) {
      attempt = 0;
      authFailures = 0;
    }
    const auth = isAuthRefusal(closeCode);
    const why: DownReason = auth ? 'auth-refused' : reason;
    if (wasOpen) h.down(why, at);
    else h.attemptFailed(why, detail);
    if ((state as ConnectionState) === 'closed') return; // a listener closed the client
    if (auth) {
      authFailures++;
      if (authFailures >= o.authFailureLimit) {
        state = 'stopped';
        h.stopped(
          new ChainpilotError(
            'STREAM_AUTH_REFUSED',
            `the Datastream server refused the API key ${authFailures} time(s) in a row (${detail}); check the key and the plan (Premium or higher), then create a new client`,
            {
              retry: 'not_retryable',
              context: { endpoint: o.url, failures: authFailures },
            },
          ),
        );
        return;
      }
    }
    scheduleReconnect();
  };

  const scheduleReconnect = (): void => {
    if (state === 'closed' || state === 'stopped' || backoffTimer) return;
    const delay = backoffWithJitter(attempt++, o.backoffBaseMs, o.backoffCapMs, () => o.random.next());
    backoffTimer = clock.setTimeout(() => {
      backoffTimer = undefined;
      connect();
    }, delay);
  };

  const connect = (): void => {
    if (state === 'closed' || state === 'stopped') return;
    state = 'connecting';
    const my = ++gen;
    httpStatus = undefined;
    authHint = false;
    let sock: FrameSocket;
    try {
      sock = openFrameSocket(
        endpoint,
        { maxPayload: o.maxFrameBytes },
        {
          unexpectedResponse(status) {
            httpStatus = status;
            if (my === gen) lose(status === 401 || status === 403 ? 'auth-refused' : 'http-status', `HTTP ${String(status)} on upgrade`);
          },
          open() {
            if (my !== gen) return;
            if (connectTimer) clock.clearTimeout(connectTimer);
            connectTimer = undefined;
            state = 'open';
            openedAt = lastFrameAt = clock.now();
            livenessTimer = clock.setTimeout(checkLiveness, Math.max(1, Math.ceil(o.livenessTimeoutMs / 4)));
            h.open();
          },
          message(buf, start, end) {
            if (my !== gen) return;
            let at = readAt;
            if (at === undefined) at = readAt = clock.now();
            lastFrameAt = at;
            h.message(buf, start, end, at);
          },
          readEnd() {
            if (my === gen && readAt !== undefined) endRead();
          },
          error(e) {
            // 'close' always follows and carries the decision; an oversized frame is also a reject to count
            if (my === gen && (e.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' || e.code === 'WS_ERR_TOO_MANY_FRAGMENTS'))
              h.frameTooLarge(e.code === 'WS_ERR_TOO_MANY_FRAGMENTS');
          },
          close(code) {
            if (my === gen) lose(state === 'open' ? 'server-closed' : 'error', `socket closed with code ${code}`, code);
          },
        },
      );
    } catch (e) {
      // the options already checked the URL; one the URL parser or HTTP client still refuses is an
      // attempt that failed, retried with backoff (only the error's name: the path holds the key)
      ws = undefined;
      state = 'backoff';
      h.attemptFailed('error', `the socket could not be created (${e instanceof Error ? e.name : 'error'})`);
      scheduleReconnect();
      return;
    }
    ws = sock;
    liveSockets++;
    connectTimer = clock.setTimeout(() => {
      connectTimer = undefined;
      if (my === gen) lose('connect-timeout', `not open after ${o.connectTimeoutMs} ms`);
    }, o.connectTimeoutMs);
  };

  return {
    get state() {
      return state;
    },
    get liveSockets() {
      return liveSockets;
    },
    start() {
      if (state === 'idle') connect();
    },
    send(frame) {
      if (state !== 'open' || !ws) return false;
      return ws.send(JSON.stringify(frame));
    },
    batch(sends) {
      if (ws) ws.batch(sends);
      else sends();
    },
    noteAuthError() {
      authHint = true;
    },
    recycle(reason) {
      if (state === 'open' || state === 'connecting') lose(reason, 'recycled by the client');
    },
    close() {
      if (state === 'closed') return;
      state = 'closed';
      gen++;
      clearTimers();
      if (backoffTimer) clock.clearTimeout(backoffTimer);
      backoffTimer = undefined;
      const sock = ws;
      ws = undefined;
      if (sock) release(sock, true);
    },
  };
}
