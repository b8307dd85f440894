/**
 * A WebSocket client socket (RFC 6455) as narrow as the Datastream needs: the opening handshake
 * through Node's own HTTP client (`ws:` and `wss:`), masked text frames out, and frames in through
 * `FrameDecoder` (no per-frame Buffer or event; see there why). No extensions, no subprotocols, no
 * redirects: the same as the `ws` options it replaces (`perMessageDeflate: false`). Pings are
 * answered, the server's close is echoed, and anything a server may not send fails the connection.
 *
 * Events come through one handler object; `detach()` swaps it for no-ops, so nothing of a released
 * socket can reach its owner.
 */
import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { ChainpilotError } from '../../../core/index.js';
import { FrameDecoder, FrameError, type FrameSink } from './frame-decoder.js';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** How long a graceful close waits for the server's close before dropping the TCP connection. */
const CLOSE_WAIT_MS = 2_000;

export interface FrameSocketEvents {
  open(): void;
  /** One message: bytes `[start, end)` of `buf`, valid during the call only. */
  message(buf: Buffer, start: number, end: number): void;
  /** Every message of one socket read has been passed to `message`. */
  readEnd(): void;
  /** The server answered the upgrade with another HTTP status (401, 403, 429, ...). */
  unexpectedResponse(status: number): void;
  /** Why the connection failed (a `FrameError` for a frame a server may not send); `close` follows. */
  error(error: Error & { code?: string }): void;
  /** The connection is gone: the server's close code, or 1006 when it ended without one. Once. */
  close(code: number): void;
}

export interface FrameSocket {
  readonly isOpen: boolean;
  /** Sends one text frame (masked, as a client must); false when not open. */
  send(text: string): boolean;
  /** Runs `sends` with the socket corked: the frames it sends leave in one write when it returns. */
  batch(sends: () => void): void;
  /** Starts the closing handshake (the TCP connection is dropped if the server does not answer). */
  close(code: number, reason: string): void;
  /** Drops the connection at once. */
  terminate(): void;
  /** Stops every event to the handlers (before a release). */
  detach(): void;
}

const noop = (): void => {};
const handshakeError = (what: string): ChainpilotError =>
  new ChainpilotError('STREAM_HANDSHAKE_FAILED', `the WebSocket upgrade got ${what}`, { retry: 'retryable' });
const DETACHED: FrameSocketEvents = { open: noop, message: noop, readEnd: noop, unexpectedResponse: noop, error: noop, close: noop };

/** A masked client frame (RFC 6455 section 5.3: every client frame is masked with fresh random bytes). */
export function clientFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const out = frameHead(opcode, n);
  const h = out.length - 4 - n;
  for (let i = 0; i < n; i++) out[h + 4 + i] = payload[i]! ^ out[h + (i & 3)]!;
  return out;
}

/**
 * A masked text frame of `text`: the UTF-8 bytes are written straight into the frame and masked in
 * place (no Buffer of the text first; joins and leaves are written for every room a run touches).
 */
export function clientTextFrame(text: string): Buffer {
  const n = Buffer.byteLength(text, 'utf8');
  const out = frameHead(1, n);
  const at = out.length - n;
  out.write(text, at, n, 'utf8');
  const m = at - 4;
  for (let i = 0; i < n; i++) out[at + i]! ^= out[m + (i & 3)]!;
  return out;
}

/**
 * Mask keys come from a pool of cryptographically random bytes refilled 8 KiB at a time (as `ws`
 * does): `randomFillSync` makes a job object per call, more than half of what building a join or
 * leave frame allocated. Every key is still fresh, unpredictable bytes, never reused.
 */
const MASK_POOL_BYTES = 8_192;
const maskPool = Buffer.alloc(MASK_POOL_BYTES);
let maskAt = MASK_POOL_BYTES;

/** A frame of `n` payload bytes with its header and a fresh mask key written; the payload is the caller's to fill and mask. */
function frameHead(opcode: number, n: number): Buffer {
  const h = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const out = Buffer.allocUnsafe(h + 4 + n);
  out[0] = 0x80 | opcode;
  if (n < 126) out[1] = 0x80 | n;
  else if (n < 65_536) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(n, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeUInt32BE(Math.floor(n / 0x1_0000_0000), 2);
    out.writeUInt32BE(n >>> 0, 6);
  }
  if (maskAt === MASK_POOL_BYTES) {
    randomFillSync(maskPool);
    maskAt = 0;
  }
  out[h] = maskPool[maskAt++]!;
  out[h + 1] = maskPool[maskAt++]!;
  out[h + 2] = maskPool[maskAt++]!;
  out[h + 3] = maskPool[maskAt++]!;
  return out;
}

function closePayload(code: number, reason: string): Buffer {
  const r = Buffer.from(reason.slice(0, 120));
  const b = Buffer.allocUnsafe(2 + r.length);
  b.writeUInt16BE(code, 0);
  r.copy(b, 2);
  return b;
}

export interface FrameSocketOptions {
  /** Largest message accepted; a larger one fails the connection with 1009. */
  readonly maxPayload: number;
  /** Most frames one fragmented message may take (default `WIRE_LIMITS.maxMessageFragments`); more fail the connection with 1009. */
  readonly maxFragments?: number;
}

/** Opens a client socket to `url` (`ws://` or `wss://`). Events arrive on `handlers` from the next tick on. */
export function openFrameSocket(url: string, o: FrameSocketOptions, handlers: FrameSocketEvents): FrameSocket {
  let h = handlers;
  let state: 'connecting' | 'open' | 'closing' | 'closed' = 'connecting';
  let socket: Socket | undefined;
  let closeSent = false;
  let closeCode = 1006;
  let closeTimer: NodeJS.Timeout | undefined;

  const target = new URL(url);
  if (target.protocol !== 'ws:' && target.protocol !== 'wss:') {
    throw new ChainpilotError('STREAM_INVALID_OPTIONS', `url must start with ws:// or wss:// (got ${target.protocol})`, { retry: 'not_retryable' });
  }
  target.protocol = target.protocol === 'wss:' ? 'https:' : 'http:';
  const key = randomBytes(16).toString('base64');
  const req = (target.protocol === 'https:' ? https : http).request(target, {
    headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': key },
  });

  const finish = (): void => {
    if (state === 'closed') return;
    state = 'closed';
    if (closeTimer) clearTimeout(closeTimer);
    closeTimer = undefined;
    h.close(closeCode);
  };

  const fail = (e: Error & { code?: string }): void => {
    if (state === 'closed') return;
    h.error(e);
    if (e instanceof FrameError) sendClose(closePayload(e.closeCode, ''));
    socket?.destroy();
    req.destroy();
    finish();
  };

  const sendRaw = (frame: Buffer): void => {
    socket?.write(frame);
  };

  /** Sends this side's close frame: once per connection, whichever side or failure starts the close. */
  const sendClose = (payload: Buffer): void => {
    if (closeSent) return;
    closeSent = true;
    sendRaw(clientFrame(8, payload));
  };

  /** The server closes the TCP connection after the closing handshake; drop it if it does not. */
  const awaitServerEnd = (): void => {
    closeTimer ??= setTimeout(() => socket?.destroy(), CLOSE_WAIT_MS).unref();
  };

  const sink: FrameSink = {
    message(buf, start, end) {
      if (state === 'open') h.message(buf, start, end); // none after our close: the owner is done with them
    },
    ping(payload) {
      if (state === 'open') sendRaw(clientFrame(10, payload));
    },
    close(code) {
      closeCode = code;
      sendClose(code === 1005 ? Buffer.alloc(0) : closePayload(code, '')); // echo the code (none when the server sent none)
      if (state !== 'closed') state = 'closing';
      socket?.end();
      awaitServerEnd();
    },
    get reading() {
      // while closing, frames are still read up to the server's close frame (its code is reported)
      return state === 'open' || state === 'closing';
    },
  };
  const decoder = new FrameDecoder(o.maxPayload, sink, o.maxFragments);

  req.on('response', (res) => {
    res.resume();
    if (state !== 'connecting') return;
    h.unexpectedResponse(res.statusCode ?? 0);
    fail(handshakeError(`HTTP ${String(res.statusCode)} instead of 101 Switching Protocols`));
  });
  req.on('error', (e) => fail(e));
  req.on('upgrade', (res, sock, head) => {
    socket = sock;
    if (state !== 'connecting') {
      sock.destroy();
      return;
    }
    const accept = createHash('sha1')
      .update(key + GUID)
      .digest('base64');
    if (res.headers['sec-websocket-accept'] !== accept) {
      fail(handshakeError('an invalid Sec-WebSocket-Accept header'));
      return;
    }
    if (res.headers['sec-websocket-extensions'] !== undefined || res.headers['sec-websocket-protocol'] !== undefined) {
      fail(handshakeError('an extension or subprotocol the client did not offer'));
      return;
    }
    state = 'open';
    sock.setNoDelay(true);
    sock.setTimeout(0);
    const onData = (chunk: Buffer): void => {
      if (state === 'closed') return;
      try {
        decoder.push(chunk);
      } catch (e) {
        h.readEnd(); // the messages before the bad frame are handled first, in order
        fail(e as FrameError);
        return;
      }
      h.readEnd();
    };
    sock.on('data', onData);
    sock.on('error', (e) => {
      if (state !== 'closed') h.error(e); // 'close' follows and carries the decision
    });
    sock.on('end', () => sock.end());
    sock.on('close', finish);
    h.open();
    if (head.length > 0) onData(head);
  });
  req.end();

  return {
    get isOpen() {
      return state === 'open';
    },
    send(text) {
      if (state !== 'open') return false;
      sendRaw(clientTextFrame(text));
      return true;
    },
    batch(sends) {
      const corked = socket;
      corked?.cork();
      try {
        sends();
      } finally {
        corked?.uncork();
      }
    },
    close(code, reason) {
      if (state === 'closed' || state === 'closing') return;
      if (state === 'connecting') {
        req.destroy();
        finish();
        return;
      }
      state = 'closing';
      sendClose(closePayload(code, reason));
      awaitServerEnd();
    },
    terminate() {
      if (state === 'closed') return;
      socket?.destroy();
      req.destroy();
      finish();
    },
    detach() {
      h = DETACHED;
    },
  };
}
