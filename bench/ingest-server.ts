/**
 * The ingest bench's server, run in a child process pinned to another core: a minimal WebSocket
 * server on raw TCP that writes pre-serialised frames in large batches (no per-frame `ws.send`), so
 * the server is never the bottleneck. The path names the room family (`/{family}/{key}`); the
 * server starts pumping that family's frames when the client sends its first frame (the join), and
 * drops the socket on the client's close frame. Each frame is a template with a counter spliced in:
 * a ring of `RING` distinct events, written again and again (a reader's dedup window must be
 * smaller than the ring, so every event is new to it).
 */
import { createHash } from 'node:crypto';
import { createServer, type Socket } from 'node:net';

/** Frame templates: `data` JSON with `#N#` where the counter goes (in the fields that identify the event). */
export type FrameTemplates = Readonly<Record<string, { readonly room: string; readonly data: unknown }>>;

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** Distinct events per family, written in chunks of `CHUNK` frames. */
export const RING = 16_384;
const CHUNK = 256;

function header(len: number): Buffer {
  if (len < 126) return Buffer.from([0x81, len]);
  if (len < 65_536) return Buffer.from([0x81, 126, len >> 8, len & 0xff]);
  const h = Buffer.alloc(10);
  h[0] = 0x81;
  h[1] = 127;
  h.writeBigUInt64BE(BigInt(len), 2);
  return h;
}

/** Starts the server; resolves to its port. */
export function startIngestServer(templates: FrameTemplates): Promise<number> {
  const pieces = new Map<string, string[]>();
  for (const [family, t] of Object.entries(templates)) pieces.set(family, JSON.stringify({ type: 'message', room: t.room, data: t.data }).split('#N#'));
  const server = createServer((socket: Socket) => {
    socket.setNoDelay(true);
    let buf = '';
    let upgraded = false;
    let pumping = false;
    let parts: string[] | undefined;
    let chunks: Buffer[] = [];
    let next = 0;
    const pump = (): void => {
      if (socket.destroyed) return;
      while (socket.writableLength < 1 << 22) {
        const ok = socket.write(chunks[next]!);
        next = (next + 1) % chunks.length;
        if (!ok) break;
      }
      setImmediate(pump);
    };
    socket.on('data', (d: Buffer) => {
      if (upgraded) {
        // opcode 8: the client's close frame
        if ((d[0]! & 0x0f) === 8) {
          socket.destroy();
          return;
        }
        if (!pumping && parts !== undefined) {
          pumping = true;
          const p = parts;
          chunks = [];
          for (let c = 0; c < RING / CHUNK; c++) {
            const frames: Buffer[] = [];
            for (let i = 0; i < CHUNK; i++) {
              const text = Buffer.from(p.join(String(c * CHUNK + i + 1)));
              frames.push(header(text.length), text);
            }
            chunks.push(Buffer.concat(frames));
          }
          pump();
        }
        return;
      }
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const path = /^GET (\S+)/.exec(buf)?.[1] ?? '/';
      const key = /sec-websocket-key: *(\S+)/i.exec(buf)?.[1] ?? '';
      parts = pieces.get(path.split('/')[1] ?? '');
      const accept = createHash('sha1')
        .update(key + GUID)
        .digest('base64');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
      upgraded = true;
    });
    socket.on('error', () => socket.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

// run as a child: templates as JSON in argv[2]; prints the port
if (process.argv[1]?.endsWith('ingest-server.ts') && process.argv[2] !== undefined) {
  void startIngestServer(JSON.parse(process.argv[2]) as FrameTemplates).then((port) => console.log(port));
}
