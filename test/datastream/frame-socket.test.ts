/**
 * openFrameSocket (src/client/datastream/connection/frame-socket.ts) on real sockets (127.0.0.1): against a
 * `ws` WebSocketServer (which checks the client's masking and closing handshake), and against a raw
 * `node:net` server that completes the handshake itself and then writes crafted bytes. Every wait is
 * on an event (a client handler, a server event), never a fixed sleep.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { FrameError } from '../../src/client/datastream/connection/frame-decoder.js';
import { openFrameSocket, type FrameSocket, type FrameSocketEvents } from '../../src/client/datastream/connection/frame-socket.js';
import { bytes, closeBody, frame } from './helpers/ws-frames.js';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const MAX_PAYLOAD = 2 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// the client side: every event recorded, waits resolved by the events themselves

type Ev =
  | { t: 'open' }
  | { t: 'message'; data: Buffer }
  | { t: 'readEnd' }
  | { t: 'unexpectedResponse'; status: number }
  | { t: 'error'; error: Error & { code?: string } }
  | { t: 'close'; code: number };

class Client implements FrameSocketEvents {
  readonly events: Ev[] = [];
  private waiters: Array<() => void> = [];
  sock!: FrameSocket;

  open(): void {
    this.add({ t: 'open' });
  }
  message(buf: Buffer, start: number, end: number): void {
    this.add({ t: 'message', data: Buffer.from(buf.subarray(start, end)) });
  }
  readEnd(): void {
    this.add({ t: 'readEnd' });
  }
  unexpectedResponse(status: number): void {
    this.add({ t: 'unexpectedResponse', status });
  }
  error(error: Error & { code?: string }): void {
    this.add({ t: 'error', error });
  }
  close(code: number): void {
    this.add({ t: 'close', code });
  }

  private add(e: Ev): void {
    this.events.push(e);
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `test` holds over the events (checked on every event). */
  until(test: (c: Client) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (test(this)) resolve();
        else this.waiters.push(check);
      };
      check();
    });
  }
  count(t: Ev['t']): number {
    return this.events.filter((e) => e.t === t).length;
  }
  has(t: Ev['t']): boolean {
    return this.count(t) > 0;
  }
  messages(): Buffer[] {
    return this.events.flatMap((e) => (e.t === 'message' ? [e.data] : []));
  }
  kinds(): string[] {
    return this.events.map((e) => e.t);
  }
  closeCode(): number | undefined {
    const c = this.events.find((e) => e.t === 'close');
    return c?.t === 'close' ? c.code : undefined;
  }
  firstError(): (Error & { code?: string }) | undefined {
    const e = this.events.find((x) => x.t === 'error');
    return e?.t === 'error' ? e.error : undefined;
  }
}

const opened: FrameSocket[] = [];
function connect(url: string, maxPayload = MAX_PAYLOAD): Client {
  const c = new Client();
  c.sock = openFrameSocket(url, { maxPayload }, c);
  opened.push(c.sock);
  return c;
}

afterEach(() => {
  for (const s of opened.splice(0)) s.terminate();
});

// ---------------------------------------------------------------------------------------------
// against a real `ws` server

describe('openFrameSocket against a ws WebSocketServer', () => {
  let wss: WebSocketServer;
  let url: string;
  const pending: Array<(ws: WebSocket) => void> = [];
  const arrived: WebSocket[] = [];

  beforeAll(async () => {
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: MAX_PAYLOAD });
    await once(wss, 'listening');
    const addr = wss.address() as net.AddressInfo;
    url = `ws://127.0.0.1:${addr.port}/path?x=1`;
    wss.on('connection', (ws) => {
      const w = pending.shift();
      if (w) w(ws);
      else arrived.push(ws);
    });
  });
  afterAll(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });

  /** The server side of the next connection. */
  const nextServerSide = (): Promise<WebSocket> => {
    const ws = arrived.shift();
    return ws ? Promise.resolve(ws) : new Promise((resolve) => pending.push(resolve));
  };

  /** A client and its server side, both open. */
  async function pair(): Promise<{ c: Client; ws: WebSocket }> {
    const server = nextServerSide();
    const c = connect(url);
    const [ws] = await Promise.all([server, c.until((x) => x.has('open'))]);
    expect(c.sock.isOpen).toBe(true);
    return { c, ws };
  }

  /** The server-side close event: [code, reason]. */
  const serverClosed = (ws: WebSocket): Promise<[number, string]> =>
    new Promise((resolve) => ws.once('close', (code: number, reason: Buffer) => resolve([code, reason.toString()])));

  it('messages of 0, 125, 126, 65535, 65536 bytes and about 1 MB arrive byte-identical, in order', async () => {
    const { c, ws } = await pair();
    const sizes = [0, 1, 125, 126, 127, 65_535, 65_536, 1_000_003];
    const sent = sizes.map((n, i) => bytes(n, i + 1));
    for (const b of sent) ws.send(b, { binary: true });
    ws.send('text: ✓ ünïcödé'); // a text frame too
    await c.until((x) => x.messages().length === sent.length + 1);
    const got = c.messages();
    sent.forEach((b, i) => {
      expect(got[i]!.length).toBe(b.length);
      expect(got[i]!.equals(b)).toBe(true);
    });
    expect(got[sent.length]!.toString()).toBe('text: ✓ ünïcödé');
    expect(c.has('error')).toBe(false);
    expect(c.count('readEnd')).toBeGreaterThan(0);
  });

  it('a fragmented message (send with fin: false, pings between the parts) arrives joined, as one message', async () => {
    const { c, ws } = await pair();
    const pongs: string[] = [];
    ws.on('pong', (d: Buffer) => pongs.push(d.toString()));
    const parts = [bytes(10, 1), bytes(300, 2), bytes(0, 3), bytes(70_000, 4), bytes(5, 5)];
    parts.forEach((p, i) => {
      const last = i === parts.length - 1;
      ws.send(p, { binary: true, fin: last });
      if (!last) ws.ping(Buffer.from(`p${i}`));
    });
    ws.send('after');
    await c.until((x) => x.messages().length === 2);
    expect(c.messages()[0]!.equals(Buffer.concat(parts))).toBe(true);
    expect(c.messages()[1]!.toString()).toBe('after');
    await expect.poll(() => pongs, { timeout: 5_000 }).toEqual(['p0', 'p1', 'p2', 'p3']);
  });

  it("the client's send(text) arrives at the server intact (ws checks the client's masking)", async () => {
    const { c, ws } = await pair();
    const got: Array<{ text: string; binary: boolean }> = [];
    ws.on('message', (d: Buffer, isBinary: boolean) => got.push({ text: d.toString(), binary: isBinary }));
    const serverError = new Promise<Error>((resolve) => ws.once('error', resolve));
    const texts = ['', 'hello', 'ü✓'.repeat(40), 'x'.repeat(125), 'y'.repeat(126), 'z'.repeat(65_535), 'w'.repeat(70_000), '{"type":"subscribe"}'];
    for (const t of texts) expect(c.sock.send(t)).toBe(true);
    const done = await Promise.race([expect.poll(() => got.length, { timeout: 5_000 }).toBe(texts.length), serverError]);
    expect(done).not.toBeInstanceOf(Error);
    expect(got).toEqual(texts.map((text) => ({ text, binary: false })));
  });

  it('frames sent in a batch (the socket corked) arrive intact and in order, and the socket writes again after it', async () => {
    const { c, ws } = await pair();
    const got: string[] = [];
    ws.on('message', (d: Buffer) => got.push(d.toString()));
    const texts = Array.from({ length: 50 }, (_, i) => JSON.stringify({ type: 'join', room: `room-${i}` }));
    c.sock.batch(() => {
      for (const t of texts) expect(c.sock.send(t)).toBe(true);
    });
    expect(c.sock.send('after')).toBe(true);
    await expect.poll(() => got.length, { timeout: 5_000 }).toBe(texts.length + 1);
    expect(got).toEqual([...texts, 'after']);
  });

  it("a server ping gets a pong with the ping's payload", async () => {
    const { ws } = await pair();
    const pong = new Promise<Buffer>((resolve) => ws.once('pong', resolve));
    ws.ping(Buffer.from('abc'));
    expect((await pong).toString()).toBe('abc');
    // an empty ping too
    const pong2 = new Promise<Buffer>((resolve) => ws.once('pong', resolve));
    ws.ping();
    expect((await pong2).length).toBe(0);
  });

  it("the server's close(4001, 'bye') closes the client once with 4001, and the server sees the client's echo", async () => {
    const { c, ws } = await pair();
    const server = serverClosed(ws);
    ws.close(4001, 'bye');
    await c.until((x) => x.has('close'));
    // ws reports the code of the close frame it received: 4001 only if the client echoed it
    // (without an echo it would wait 30 s and report 1006)
    expect((await server)[0]).toBe(4001);
    expect(c.closeCode()).toBe(4001);
    expect(c.count('close')).toBe(1);
    expect(c.has('error')).toBe(false);
    expect(c.sock.isOpen).toBe(false);
    expect(c.sock.send('late')).toBe(false);
  });

  it('a server close without a code is echoed without one (client 1005, server 1005)', async () => {
    const { c, ws } = await pair();
    const server = serverClosed(ws);
    ws.close();
    await c.until((x) => x.has('close'));
    expect((await server)[0]).toBe(1005);
    expect(c.closeCode()).toBe(1005);
  });

  it("the client's close(1000, 'client closed') reaches the server with its code and reason", async () => {
    const { c, ws } = await pair();
    const server = serverClosed(ws);
    c.sock.close(1000, 'client closed');
    expect(c.sock.isOpen).toBe(false);
    expect(await server).toEqual([1000, 'client closed']);
    await c.until((x) => x.has('close'));
    expect(c.count('close')).toBe(1);
    expect(c.has('error')).toBe(false);
  });

  it("after the client's close(1000), its close event carries the server's echoed 1000", async () => {
    // the server answers the client's close frame with its own (1000): the socket reads on while
    // closing, up to that frame, and reports its code, not 1006 ("ended without a close frame")
    const { c, ws } = await pair();
    const server = serverClosed(ws);
    c.sock.close(1000, 'client closed');
    await server;
    await c.until((x) => x.has('close'));
    expect(c.closeCode()).toBe(1000);
  });

  it('terminate() drops the connection at once: the server sees 1006, the client closes once with 1006', async () => {
    const { c, ws } = await pair();
    const server = serverClosed(ws);
    c.sock.terminate();
    expect(c.sock.isOpen).toBe(false);
    expect((await server)[0]).toBe(1006);
    expect(c.kinds().filter((k) => k === 'close')).toEqual(['close']);
    expect(c.closeCode()).toBe(1006);
    c.sock.terminate(); // twice is harmless
    c.sock.close(1000, 'x');
    expect(c.count('close')).toBe(1);
  });

  it('after detach() no handler is called: not for a message, a ping, nor the close that follows', async () => {
    const { c, ws } = await pair();
    ws.send('before');
    await c.until((x) => x.messages().length === 1);
    const seen = c.events.length;
    c.sock.detach();
    const pong = new Promise<Buffer>((resolve) => ws.once('pong', resolve));
    const server = serverClosed(ws);
    ws.send('after detach 1');
    ws.ping(Buffer.from('still answered'));
    ws.send(bytes(100_000, 7));
    ws.close(4002, 'gone');
    // The socket still reads after detach: it answers the ping (sent after the first message) and
    // echoes the close (sent after every message); ws reports 4002 only when it got that echo. So by
    // now the client has read and decoded every message above.
    expect((await pong).toString()).toBe('still answered');
    expect((await server)[0]).toBe(4002);
    expect(c.events.length).toBe(seen);
    expect(c.sock.isOpen).toBe(false);
  });

  it('a detached socket that is terminated calls nothing either', async () => {
    const { c, ws } = await pair();
    const seen = c.events.length;
    const server = serverClosed(ws);
    c.sock.detach();
    c.sock.terminate();
    expect((await server)[0]).toBe(1006);
    expect(c.events.length).toBe(seen);
  });
});

// ---------------------------------------------------------------------------------------------
// against a raw TCP server that speaks the handshake itself and then writes crafted bytes

interface ClientFrame {
  fin: boolean;
  opcode: number;
  masked: boolean;
  payload: Buffer;
}

/** Parses (and unmasks) the frames a client sent; a trailing incomplete frame is left out. */
function parseClientFrames(data: Buffer): ClientFrame[] {
  const out: ClientFrame[] = [];
  let p = 0;
  while (data.length - p >= 2) {
    const b0 = data[p]!;
    const b1 = data[p + 1]!;
    let len = b1 & 0x7f;
    let h = 2;
    if (len === 126) {
      if (data.length - p < 4) break;
      len = data.readUInt16BE(p + 2);
      h = 4;
    } else if (len === 127) {
      if (data.length - p < 10) break;
      len = data.readUInt32BE(p + 2) * 2 ** 32 + data.readUInt32BE(p + 6);
      h = 10;
    }
    const masked = (b1 & 0x80) !== 0;
    const m = masked ? 4 : 0;
    if (data.length - p < h + m + len) break;
    const key = data.subarray(p + h, p + h + m);
    const payload = Buffer.from(data.subarray(p + h + m, p + h + m + len));
    if (masked) for (let i = 0; i < len; i++) payload[i]! ^= key[i & 3]!;
    out.push({ fin: (b0 & 0x80) !== 0, opcode: b0 & 0x0f, masked, payload });
    p += h + m + len;
  }
  return out;
}

interface RawConn {
  sock: net.Socket;
  /** The request's headers (lower-case names). */
  headers: Record<string, string>;
  requestLine: string;
  key: string;
  /** Bytes the client sent after its request. */
  received: () => Buffer;
  /** Resolves when the client's side of the TCP connection has ended (FIN, reset or close), with what it sent. */
  ended: Promise<Buffer>;
  /** Writes and waits for the write to be handed to the kernel. */
  write(b: Buffer | string): Promise<void>;
  /** The 101 response (optionally wrong or with extra headers), and `after` in the same write. */
  accept(opts?: { accept?: string; extra?: string[]; after?: Buffer }): Promise<void>;
}

const acceptFor = (key: string): string =>
  createHash('sha1')
    .update(key + GUID)
    .digest('base64');

/** A TCP server on 127.0.0.1 that reads the upgrade request and hands each connection to the test. */
async function rawServer(): Promise<{ url: string; next: () => Promise<RawConn>; close: () => Promise<void> }> {
  const waiting: Array<(c: RawConn) => void> = [];
  const ready: RawConn[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((sock) => {
    sockets.add(sock);
    sock.setNoDelay(true);
    sock.on('error', () => {}); // a reset from the client ends the connection like a FIN here
    let buf = Buffer.alloc(0);
    let conn: RawConn | undefined;
    let endedResolve!: (b: Buffer) => void;
    const ended = new Promise<Buffer>((resolve) => (endedResolve = resolve));
    sock.on('close', () => endedResolve(conn ? conn.received() : Buffer.alloc(0)));
    sock.on('end', () => endedResolve(conn ? conn.received() : Buffer.alloc(0)));
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (conn) return;
      const at = buf.indexOf('\r\n\r\n');
      if (at < 0) return;
      const lines = buf.subarray(0, at).toString('latin1').split('\r\n');
      buf = buf.subarray(at + 4);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const write = (b: Buffer | string): Promise<void> => new Promise((resolve, reject) => sock.write(b, (e) => (e ? reject(e) : resolve())));
      const key = headers['sec-websocket-key'] ?? '';
      conn = {
        sock,
        headers,
        requestLine: lines[0]!,
        key,
        received: () => buf,
        ended,
        write,
        accept: (o = {}) =>
          write(
            Buffer.concat([
              Buffer.from(
                [
                  'HTTP/1.1 101 Switching Protocols',
                  'Upgrade: websocket',
                  'Connection: Upgrade',
                  `Sec-WebSocket-Accept: ${o.accept ?? acceptFor(key)}`,
                  ...(o.extra ?? []),
                  '',
                  '',
                ].join('\r\n'),
              ),
              o.after ?? Buffer.alloc(0),
            ]),
          ),
      };
      const w = waiting.shift();
      if (w) w(conn);
      else ready.push(conn);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}/raw`,
    next: () => {
      const c = ready.shift();
      return c ? Promise.resolve(c) : new Promise((resolve) => waiting.push(resolve));
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('openFrameSocket against a raw TCP server', () => {
  let raw: Awaited<ReturnType<typeof rawServer>>;
  beforeAll(async () => {
    raw = await rawServer();
  });
  afterAll(async () => {
    await raw.close();
  });

  /** A client whose upgrade the raw server has accepted. */
  async function accepted(maxPayload = MAX_PAYLOAD, after?: Buffer): Promise<{ c: Client; s: RawConn }> {
    const c = connect(raw.url, maxPayload);
    const s = await raw.next();
    await s.accept({ after });
    await c.until((x) => x.has('open'));
    return { c, s };
  }

  it('sends a well-formed upgrade request', async () => {
    const c = connect(raw.url);
    const s = await raw.next();
    expect(s.requestLine).toBe('GET /raw HTTP/1.1');
    expect(s.headers['upgrade']?.toLowerCase()).toBe('websocket');
    expect(s.headers['connection']?.toLowerCase()).toContain('upgrade');
    expect(s.headers['sec-websocket-version']).toBe('13');
    expect(Buffer.from(s.key, 'base64').length).toBe(16);
    expect(s.headers['sec-websocket-extensions']).toBeUndefined();
    await s.accept();
    await c.until((x) => x.has('open'));
  });

  it('frames written one byte per write (no Nagle, each write awaited) are assembled, and pings answered', async () => {
    const { c, s } = await accepted();
    const big = bytes(300, 1);
    const huge = bytes(65_536, 2);
    const stream = Buffer.concat([
      frame(1, 'hello'),
      frame(2, big),
      frame(9, 'p1'),
      frame(1, 'frag-', { fin: false }),
      frame(10, 'pong'),
      frame(0, 'ment', { fin: false }),
      frame(9, 'p2'),
      frame(0, 'ed'),
      frame(1, 'world'),
    ]);
    for (let i = 0; i < stream.length; i++) await s.write(stream.subarray(i, i + 1));
    // and a 64-bit-length frame: its header a byte at a time, its payload in one write
    const hf = frame(2, huge);
    for (let i = 0; i < 10; i++) await s.write(hf.subarray(i, i + 1));
    await s.write(hf.subarray(10));
    await c.until((x) => x.messages().length === 5);
    const got = c.messages();
    expect(got[0]!.toString()).toBe('hello');
    expect(got[1]!.equals(big)).toBe(true);
    expect(got[2]!.toString()).toBe('frag-mented');
    expect(got[3]!.toString()).toBe('world');
    expect(got[4]!.equals(huge)).toBe(true);
    expect(c.has('error')).toBe(false);
    // the pongs: masked, with the pings' payloads
    await expect.poll(() => parseClientFrames(s.received()).length, { timeout: 5_000 }).toBe(2);
    expect(parseClientFrames(s.received()).map((f) => [f.opcode, f.masked, f.fin, f.payload.toString()])).toEqual([
      [10, true, true, 'p1'],
      [10, true, true, 'p2'],
    ]);
  });

  it('frames in the same write as the 101 response (the upgrade head) are delivered after open', async () => {
    const { c } = await accepted(MAX_PAYLOAD, Buffer.concat([frame(1, 'in head'), frame(1, 'also')]));
    await c.until((x) => x.messages().length === 2);
    expect(c.kinds().slice(0, 2)).toEqual(['open', 'message']);
    expect(c.messages().map(String)).toEqual(['in head', 'also']);
  });

  it('an oversized frame header: error WS_ERR_UNSUPPORTED_MESSAGE_LENGTH, close(1006), and the server gets a close frame with 1009 before the TCP end', async () => {
    const { c, s } = await accepted(1_000);
    await s.write(Buffer.concat([frame(1, 'small'), Buffer.from([0x82, 126, 0x13, 0x88])])); // 5000 bytes announced, none sent
    await c.until((x) => x.has('close'));
    const err = c.firstError();
    expect(err).toBeInstanceOf(FrameError);
    expect(err?.code).toBe('WS_ERR_UNSUPPORTED_MESSAGE_LENGTH');
    expect((err as FrameError).closeCode).toBe(1009);
    expect(c.closeCode()).toBe(1006);
    expect(c.kinds().filter((k) => k !== 'readEnd')).toEqual(['open', 'message', 'error', 'close']);
    const sent = await s.ended;
    const frames = parseClientFrames(sent);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ opcode: 8, masked: true, fin: true });
    expect(frames[0]!.payload.readUInt16BE(0)).toBe(1009);
  });

  it('an unfinished message followed by a stream of empty continuations: error WS_ERR_TOO_MANY_FRAGMENTS and a close frame with 1009 to the server', async () => {
    const { c, s } = await accepted();
    await s.write(frame(1, '{"type":', { fin: false }));
    // 2-byte empty continuations, 64 KiB per write, until the client ends the connection
    const empties = Buffer.alloc(65_536); // every pair is 0x00 0x00: continuation, no FIN, length 0
    let writes = 0;
    const closed = c.until((x) => x.has('close'));
    while (!c.has('close') && writes < 1_000) {
      await s.write(empties).catch(() => undefined); // the client may have reset the socket already
      writes++;
    }
    await closed;
    expect(c.firstError()?.code).toBe('WS_ERR_TOO_MANY_FRAGMENTS');
    expect((c.firstError() as FrameError).closeCode).toBe(1009);
    expect(c.messages()).toEqual([]);
    expect(writes).toBeLessThan(1_000);
    const frames = parseClientFrames(await s.ended);
    expect(frames.map((f) => [f.opcode, f.payload.readUInt16BE(0)])).toEqual([[8, 1009]]);
  });

  it('a masked server frame: error WS_ERR_UNEXPECTED_MASK, close(1006), a close frame with 1002 to the server', async () => {
    const { c, s } = await accepted();
    await s.write(frame(1, 'masked', { mask: true }));
    await c.until((x) => x.has('close'));
    expect(c.firstError()?.code).toBe('WS_ERR_UNEXPECTED_MASK');
    expect(c.closeCode()).toBe(1006);
    expect(c.count('close')).toBe(1);
    expect(c.messages()).toHaveLength(0);
    const frames = parseClientFrames(await s.ended);
    expect(frames.map((f) => [f.opcode, f.payload.readUInt16BE(0)])).toEqual([[8, 1002]]);
  });

  it('messages before a bad frame in the same write are delivered, and readEnd called, before the error', async () => {
    const { c, s } = await accepted();
    await s.write(Buffer.concat([frame(1, 'one'), frame(2, bytes(200, 3)), frame(1, 'three'), frame(5, 'bad opcode'), frame(1, 'never')]));
    await c.until((x) => x.has('close'));
    expect(c.messages().map((m, i) => (i === 1 ? m.length : m.toString()))).toEqual(['one', 200, 'three']);
    const k = c.kinds();
    const errAt = k.indexOf('error');
    expect(k[errAt - 1]).toBe('readEnd');
    expect(k.lastIndexOf('message')).toBeLessThan(errAt);
    expect(k.slice(errAt)).toEqual(['error', 'close']);
    expect(c.firstError()?.code).toBe('WS_ERR_INVALID_OPCODE');
  });

  it('a server close frame followed by more frames in the same write: close with its code, nothing after it', async () => {
    const { c, s } = await accepted();
    await s.write(Buffer.concat([frame(1, 'before'), frame(8, closeBody(4003, 'x')), frame(1, 'after')]));
    // the client echoes the close and ends its side; the server then ends the TCP connection
    await expect.poll(() => parseClientFrames(s.received()).length, { timeout: 5_000 }).toBe(1);
    expect(parseClientFrames(s.received()).map((f) => [f.opcode, f.payload.readUInt16BE(0)])).toEqual([[8, 4003]]);
    s.sock.end();
    await c.until((x) => x.has('close'));
    expect(c.messages().map(String)).toEqual(['before']);
    expect(c.closeCode()).toBe(4003);
    expect(c.count('close')).toBe(1);
  });

  it('the server ending TCP without a close frame: close(1006) once, no error', async () => {
    const { c, s } = await accepted();
    await s.write(frame(1, 'last words'));
    s.sock.end();
    await c.until((x) => x.has('close'));
    expect(c.messages().map(String)).toEqual(['last words']);
    expect(c.closeCode()).toBe(1006);
    expect(c.count('close')).toBe(1);
  });

  it('a bad Sec-WebSocket-Accept: error, close(1006), never open', async () => {
    const c = connect(raw.url);
    const s = await raw.next();
    await s.accept({ accept: acceptFor('not the key') });
    await c.until((x) => x.has('close'));
    expect(c.kinds()).toEqual(['error', 'close']);
    expect(c.firstError()?.code).toBe('STREAM_HANDSHAKE_FAILED');
    expect(c.closeCode()).toBe(1006);
    expect(c.sock.isOpen).toBe(false);
    await s.ended;
  });

  it('a response with Sec-WebSocket-Extensions (never offered): error, close, never open', async () => {
    const c = connect(raw.url);
    const s = await raw.next();
    await s.accept({ extra: ['Sec-WebSocket-Extensions: permessage-deflate'] });
    await c.until((x) => x.has('close'));
    expect(c.kinds()).toEqual(['error', 'close']);
    expect(c.firstError()?.code).toBe('STREAM_HANDSHAKE_FAILED');
    await s.ended;
  });

  it('a response with Sec-WebSocket-Protocol (never offered): error, close, never open', async () => {
    const c = connect(raw.url);
    const s = await raw.next();
    await s.accept({ extra: ['Sec-WebSocket-Protocol: chat'] });
    await c.until((x) => x.has('close'));
    expect(c.kinds()).toEqual(['error', 'close']);
  });

  it('an HTTP 401 response: unexpectedResponse(401), then close, never open', async () => {
    const c = connect(raw.url);
    const s = await raw.next();
    await s.write('HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nConnection: close\r\n\r\nunauthorized');
    await c.until((x) => x.has('close'));
    expect(c.kinds().filter((k) => k !== 'error')).toEqual(['unexpectedResponse', 'close']);
    expect(c.events[0]).toEqual({ t: 'unexpectedResponse', status: 401 });
    expect(c.firstError()?.code).toBe('STREAM_HANDSHAKE_FAILED');
    expect(c.closeCode()).toBe(1006);
    expect(c.count('close')).toBe(1);
  });

  it('a connection refused: error, close(1006), never open', async () => {
    // a port nobody listens on: listen, note the port, close
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const c = connect(`ws://127.0.0.1:${port}/`);
    await c.until((x) => x.has('close'));
    expect(c.kinds()).toEqual(['error', 'close']);
    expect(c.firstError()?.code).toBe('ECONNREFUSED');
    expect(c.closeCode()).toBe(1006);
    expect(c.sock.isOpen).toBe(false);
    expect(c.sock.send('x')).toBe(false);
  });

  it('close() while connecting: close once, never open, even when the server accepts later', async () => {
    const c = connect(raw.url);
    const s = await raw.next();
    c.sock.close(1000, 'never mind');
    await c.until((x) => x.has('close'));
    await s.accept().catch(() => {});
    await s.ended;
    expect(c.kinds()).toEqual(['close']);
  });

  it('a url that is not ws:// or wss:// is refused at once', () => {
    expect(() => openFrameSocket('http://127.0.0.1:1/', { maxPayload: 10 }, new Client())).toThrow(/url must start with ws:\/\/ or wss:\/\//);
  });
});

// ---------------------------------------------------------------------------------------------
// wss:// (the real service's scheme): TLS through node:https, the certificate verified

describe('openFrameSocket over TLS (wss://)', () => {
  const dir = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
  const cert = readFileSync(`${dir}localhost-cert.pem`);
  const key = readFileSync(`${dir}localhost-key.pem`);
  let server: https.Server;
  let wss: WebSocketServer;
  let url: string;
  const savedCa = https.globalAgent.options.ca;

  beforeAll(async () => {
    server = https.createServer({ cert, key });
    wss = new WebSocketServer({ server });
    wss.on('connection', (ws) => ws.on('message', (m: Buffer) => ws.send(`echo ${m.toString()}`)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `wss://localhost:${(server.address() as net.AddressInfo).port}/stream/key`;
  });
  afterAll(async () => {
    https.globalAgent.options.ca = savedCa;
    wss.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a certificate nobody vouches for: error, close(1006), never open', async () => {
    https.globalAgent.options.ca = savedCa;
    const c = connect(url);
    await c.until((x) => x.has('close'));
    expect(c.kinds()).toEqual(['error', 'close']);
    expect(c.firstError()?.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });

  it('with the certificate trusted: opens, sends and receives frames', async () => {
    // the test's self-signed localhost certificate, trusted through the default agent
    https.globalAgent.options.ca = cert;
    const c = connect(url);
    await c.until((x) => x.has('open'));
    expect(c.sock.send('{"type":"join","room":"latest"}')).toBe(true);
    await c.until((x) => x.messages().length === 1);
    expect(c.messages()[0]!.toString()).toBe('echo {"type":"join","room":"latest"}');
  });
});
