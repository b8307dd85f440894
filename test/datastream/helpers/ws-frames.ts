/** Server-side WebSocket frames for the socket tests (RFC 6455 section 5.2), built by hand. */

export interface FrameOpts {
  fin?: boolean;
  rsv?: number;
  mask?: boolean;
}

/** One frame as a server sends it (unmasked unless `mask`), with the shortest length encoding. */
export function frame(opcode: number, payload: Buffer | string = Buffer.alloc(0), opts: FrameOpts = {}): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const n = body.length;
  const fin = opts.fin ?? true;
  const h = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const head = Buffer.alloc(h + (opts.mask ? 4 : 0));
  head[0] = (fin ? 0x80 : 0) | ((opts.rsv ?? 0) << 4) | opcode;
  const m = opts.mask ? 0x80 : 0;
  if (n < 126) head[1] = m | n;
  else if (n < 65_536) {
    head[1] = m | 126;
    head.writeUInt16BE(n, 2);
  } else {
    head[1] = m | 127;
    head.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    head.writeUInt32BE(n >>> 0, 6);
  }
  if (!opts.mask) return Buffer.concat([head, body]);
  const key = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  key.copy(head, h);
  const masked = Buffer.from(body.map((b, i) => b ^ key[i & 3]!));
  return Buffer.concat([head, masked]);
}

/** A close frame's payload: the code, then the reason. */
export const closeBody = (code: number, reason = ''): Buffer => {
  const r = Buffer.from(reason);
  const b = Buffer.alloc(2 + r.length);
  b.writeUInt16BE(code, 0);
  r.copy(b, 2);
  return b;
};

/** `n` bytes of a pattern chosen by `seed` (cheap to make even for 70 kB). */
export function bytes(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = (seed * 2_654_435_761) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}
