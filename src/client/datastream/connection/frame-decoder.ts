/**
 * The receiving half of a WebSocket client (RFC 6455 section 5), for the Datastream socket: turns the
 * bytes of a TCP stream, in whatever pieces they arrive, into messages and control frames.
 *
 * Why not `ws`'s receiver: it makes a Buffer view and two events for every frame, about 250 ns of a
 * 700-byte frame's 2.8 µs (socket read, framing, decode, `JSON.parse`), more than the guard or the
 * dedup identity cost. Here a complete frame is passed on as a range of the socket's own chunk, with
 * no view, no copy and no event; only a frame split across two reads, or a fragmented message, is
 * copied once. Everything a server may not send is refused with the close code the RFC asks for.
 */

import { WIRE_LIMITS } from '../../wire-limits.js';

/** Close codes the decoder fails with (RFC 6455 section 7.4.1). */
export const PROTOCOL_ERROR = 1002;
export const MESSAGE_TOO_BIG = 1009;

/** What the decoder found that a server may not send. */
export class FrameError extends Error {
  constructor(
    message: string,
    /** The close code to fail the connection with. */
    readonly closeCode: number,
    /** `ws`'s error code for the same condition (`WS_ERR_UNSUPPORTED_MESSAGE_LENGTH`, ...). */
    readonly code: string,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

export interface FrameSink {
  /**
   * One whole message (text or binary; fragments joined): bytes `[start, end)` of `buf`. `buf` is
   * only valid during the call (it may be the socket's chunk, reused by nothing but not kept either).
   */
  message(buf: Buffer, start: number, end: number): void;
  /** A ping's payload: answer with a pong carrying it. */
  ping(payload: Buffer): void;
  /** The server's close frame: its code (1005 when it had none) and reason. */
  close(code: number, reason: string): void;
  /** False once the sink wants no more frames of this read (a handler closed the socket). */
  readonly reading: boolean;
}

/** Largest 64-bit length the decoder accepts: 2^53 - 1, far above any `maxPayload`. */
const MAX_HI = 0x1f_ffff;

/** Close codes a peer may send (RFC 6455 section 7.4, and the registry's 1012-1014; 3000-4999 for applications). */
export function isValidCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

export class FrameDecoder {
  /** An incomplete frame carried over from earlier reads: its pieces and their total length. */
  private pend: Buffer[] = [];
  private pendLen = 0;
  /** The pieces of a fragmented message (a text or binary frame without FIN, then continuations). */
  private frags: Buffer[] | undefined;
  private fragLen = 0;
  /** Frames of the fragmented message so far, empty continuations included. */
  private fragCount = 0;
  /** A frame a server may not send was found, or the close frame was read: nothing more is decoded. */
  private done = false;

  constructor(
    private readonly maxPayload: number,
    private readonly sink: FrameSink,
    /** Most frames one fragmented message may take (empty continuations count): bounds the work and memory of a stream of them. */
    private readonly maxFragments: number = WIRE_LIMITS.maxMessageFragments,
  ) {}

  /** Feeds one chunk of the stream. Throws a FrameError (and takes nothing more) on a frame a server may not send. */
  push(chunk: Buffer): void {
    if (this.done) return;
    try {
      let p = 0;
      if (this.pendLen > 0) {
        p = this.completePending(chunk);
        if (p < 0) return; // nothing more to read in this chunk
      }
      const end = this.decode(chunk, p, chunk.length);
      if (end < chunk.length && this.sink.reading) this.keep(chunk.subarray(end));
    } catch (e) {
      this.stop();
      throw e;
    }
  }

  /** Ends decoding for good (a refused frame, or the close frame) and lets go of every held byte. */
  private stop(): void {
    this.done = true;
    this.pend = [];
    this.pendLen = 0;
    this.frags = undefined;
  }

  /** Bytes of an unfinished frame held between reads (for tests and limits). */
  get pending(): number {
    return this.pendLen;
  }

  private keep(piece: Buffer): void {
    this.pend.push(piece);
    this.pendLen += piece.length;
  }

  /**
   * Completes the frame carried over with the first bytes of `chunk` and decodes it alone. Returns
   * where the rest of `chunk` starts, or -1 when nothing more of it is to be read (the frame is
   * still incomplete and `chunk` was kept, or reading stopped at that frame).
   */
  private completePending(chunk: Buffer): number {
    // the header may itself be split: look at up to 14 bytes of the carried piece and the chunk
    const parts: Buffer[] = [];
    let got = 0;
    for (let i = 0; i < this.pend.length && got < 14; i++) {
      const piece = this.pend[i]!.subarray(0, 14 - got);
      parts.push(piece);
      got += piece.length;
    }
    parts.push(chunk.subarray(0, 14 - got));
    const head = Buffer.concat(parts);
    const size = this.frameSize(head, 0, head.length);
    if (size < 0 || this.pendLen + chunk.length < size) {
      this.keep(chunk);
      return -1;
    }
    const used = size - this.pendLen;
    const whole = Buffer.concat([...this.pend, chunk.subarray(0, used)], size);
    this.pend = [];
    this.pendLen = 0;
    this.decode(whole, 0, size);
    // a close frame, or a sink that stopped reading: the rest of the chunk is not read
    return this.done || !this.sink.reading ? -1 : used;
  }

  /**
   * The whole size (header and payload) of the frame at `p`, or -1 when its header is not complete
   * yet. Throws on a header a server may not send, before any of its payload has to arrive.
   */
  private frameSize(buf: Buffer, p: number, end: number): number {
    if (end - p < 2) return -1;
    const b0 = buf[p]!;
    const b1 = buf[p + 1]!;
    if ((b0 & 0x40) !== 0) throw new FrameError('RSV1 set without a negotiated extension', PROTOCOL_ERROR, 'WS_ERR_UNEXPECTED_RSV_1');
    if ((b0 & 0x30) !== 0) throw new FrameError('RSV2 or RSV3 set without a negotiated extension', PROTOCOL_ERROR, 'WS_ERR_UNEXPECTED_RSV_2_3');
    if ((b1 & 0x80) !== 0) throw new FrameError('the server masked a frame', PROTOCOL_ERROR, 'WS_ERR_UNEXPECTED_MASK');
    const op = b0 & 0x0f;
    let len = b1 & 0x7f;
    let h = 2;
    if (op >= 8) {
      if (op > 10) throw new FrameError(`invalid opcode ${op}`, PROTOCOL_ERROR, 'WS_ERR_INVALID_OPCODE');
      if ((b0 & 0x80) === 0) throw new FrameError('a fragmented control frame', PROTOCOL_ERROR, 'WS_ERR_EXPECTED_FIN');
      if (len > 125) throw new FrameError('a control frame over 125 bytes', PROTOCOL_ERROR, 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH');
    } else if (op > 2) throw new FrameError(`invalid opcode ${op}`, PROTOCOL_ERROR, 'WS_ERR_INVALID_OPCODE');
    if (len === 126) {
      if (end - p < 4) return -1;
      len = buf.readUInt16BE(p + 2);
      h = 4;
    } else if (len === 127) {
      if (end - p < 10) return -1;
      const hi = buf.readUInt32BE(p + 2);
      if (hi > MAX_HI) throw new FrameError('a frame length over 2^53 - 1', MESSAGE_TOO_BIG, 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH');
      len = hi * 0x1_0000_0000 + buf.readUInt32BE(p + 6);
      h = 10;
    }
    if (len > this.maxPayload || (op === 0 && this.fragLen + len > this.maxPayload)) {
      throw new FrameError(`a message over maxPayload (${this.maxPayload} bytes)`, MESSAGE_TOO_BIG, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH');
    }
    return h + len;
  }

  /** Decodes the whole frames in `[p, end)`; returns where the first incomplete one starts. */
  private decode(buf: Buffer, p: number, end: number): number {
    const sink = this.sink;
    while (p < end) {
      const size = this.frameSize(buf, p, end);
      if (size < 0 || end - p < size) return p;
      const b0 = buf[p]!;
      const fin = (b0 & 0x80) !== 0;
      const op = b0 & 0x0f;
      const next = p + size;
      const len = buf[p + 1]! & 0x7f;
      const start = next - (len < 126 ? len : len === 126 ? size - 4 : size - 10);
      p = next;
      if (op === 1 || op === 2) {
        if (this.frags !== undefined) throw new FrameError('a new message inside a fragmented one', PROTOCOL_ERROR, 'WS_ERR_INVALID_OPCODE');
        if (fin) sink.message(buf, start, next);
        else {
          this.frags = next > start ? [Buffer.from(buf.subarray(start, next))] : [];
          this.fragLen = next - start;
          this.fragCount = 1;
        }
      } else if (op === 0) {
        if (this.frags === undefined) throw new FrameError('a continuation frame outside a message', PROTOCOL_ERROR, 'WS_ERR_INVALID_OPCODE');
        if (++this.fragCount > this.maxFragments) {
          throw new FrameError(`a message in more than ${this.maxFragments} frames`, MESSAGE_TOO_BIG, 'WS_ERR_TOO_MANY_FRAGMENTS');
        }
        if (next > start) this.frags.push(Buffer.from(buf.subarray(start, next)));
        this.fragLen += next - start;
        if (fin) {
          const whole = Buffer.concat(this.frags, this.fragLen);
          this.frags = undefined;
          this.fragLen = 0;
          sink.message(whole, 0, whole.length);
        }
      } else if (op === 9) sink.ping(Buffer.from(buf.subarray(start, next)));
      else if (op === 8) {
        const n = next - start;
        if (n === 1) throw new FrameError('a close frame with a one-byte payload', PROTOCOL_ERROR, 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH');
        const code = n === 0 ? 1005 : buf.readUInt16BE(start);
        if (n > 0 && !isValidCloseCode(code)) throw new FrameError(`invalid close code ${code}`, PROTOCOL_ERROR, 'WS_ERR_INVALID_CLOSE_CODE');
        this.stop(); // nothing after a close frame is read (RFC 6455 section 5.5.1)
        sink.close(code, n > 2 ? buf.toString('utf8', start + 2, next) : '');
        return end;
      }
      // op 10 (pong): nothing to do
      if (!sink.reading) return end;
    }
    return p;
  }
}
