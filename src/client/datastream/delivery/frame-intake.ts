/**
 * Frame intake: the first step of the hot path. The connection hands over each message's bytes as
 * the socket reads them; the intake decodes them (UTF-8, then `JSON.parse`, once) into a batch and
 * hands the batch to the frame handler (frame-dispatch.ts) in order when the read ends, at most
 * MAX_BATCH frames at a time, and with `sliceMs` for at most that long per event-loop turn.
 *
 * Why batches: the guard, fingerprint, dedup window and dispatch then run one frame after another
 * while their code, branch history and tables are still in the CPU's caches; interleaved with
 * framing and JSON.parse they cost about twice as much (liquidity: about 600 ns a frame instead of
 * 340 in a tight loop of the same work). A read that carries one frame is handled at its end as
 * before; in a burst, the first frame of a batch waits for the parsing of the others (MAX_BATCH
 * bounds that: about 50 µs of parsing for liquidity frames).
 *
 * With `sliceMs` and a delivery queue (delivery-queue.ts) one frame's deliveries may end the slice
 * too: the queue learns the slice's deadline, and no later frame is handled before the deliveries
 * that wait were made (`drain` first in the next turn).
 *
 * State: the batch (parallel arrays from `head` to `size`), whether a handling loop is running, the
 * slice deadline and its queued resume, and `closed`.
 */
import { isUtf8 } from 'node:buffer';
import type { UnixMs } from '../../../core/index.js';
import type { DeliveryQueue } from './delivery-queue.js';

/** The parsed value of a frame whose text is not JSON (its text still reaches the raw-frame tap). */
export const NOT_JSON: unknown = Symbol('not JSON');
/** The parsed value of a frame whose bytes are not valid UTF-8. */
export const NOT_UTF8: unknown = Symbol('not valid UTF-8');

/** Handles one frame: its text, its parsed value (or NOT_JSON / NOT_UTF8), its size in bytes and its read's time. Must not throw. */
export type FrameHandler = (text: string, frame: unknown, bytes: number, at: UnixMs) => void;

export interface FrameIntakeOptions {
  /** Real milliseconds one turn may spend handling a read's frames (undefined: a read is handled in full). */
  readonly sliceMs: number | undefined;
  readonly handle: FrameHandler;
  /** Decoding a frame threw (it is not batched): called after every frame before it was handled. Must not throw. */
  readonly undecodable: (error: unknown) => void;
  /** The router's delivery queue when deliveries may pause between subscribers (with `sliceMs`). */
  readonly queue?: Pick<DeliveryQueue<unknown>, 'waiting' | 'drain' | 'until'>;
}

export interface FrameIntake {
  /** The connection's `message`: bytes `[start, end)` of `buf`, valid during the call only. */
  readonly receive: (buf: Buffer, start: number, end: number, at: UnixMs) => void;
  /** The connection's `readEnd`: every frame without `sliceMs`, else this turn's slice. */
  readonly readEnd: () => void;
  /** Handles every frame received so far: anything that happens after them (socket events, close) calls it first. */
  flush(): void;
  /** Final: frames still waiting are dropped (as the socket would have dropped them), nothing resumes. */
  close(): void;
}

const MAX_BATCH = 32;
/** At most MAX_BACKLOG frames wait for later turns: beyond, a read is handled in full (memory stays bounded). */
const MAX_BACKLOG = 8_192;

export function createFrameIntake(o: FrameIntakeOptions): FrameIntake {
  const { sliceMs, handle, undecodable, queue } = o;
  const batchText: string[] = [];
  const batchFrame: unknown[] = [];
  const batchBytes: number[] = [];
  const batchAt: UnixMs[] = [];
  let batchSize = 0;
  let handling = false;
  let closed = false;
  // With `sliceMs` (see options.ts) a read's frames are handled for at most that long per event-loop
  // turn; the rest wait, in order, from `head`, for the next turns (`resumeQueued`). Frames count as
  // received (`framesReceived`) when handled, so a lockstep driver waits for them.
  let head = 0;
  let resumeQueued = false;
  let sliceUntil = 0;

  const receive = (buf: Buffer, start: number, end: number, at: UnixMs): void => {
    let text: string;
    let frame: unknown;
    try {
      text = buf.toString('utf8', start, end);
      // The socket does not validate UTF-8 (frame-socket.ts). The decoder turns every
      // invalid sequence into U+FFFD, so a text without one came from valid UTF-8; only a text with one
      // (invalid, or a U+FFFD the server meant) has its bytes checked. For a Latin-1 text (JSON frames
      // almost always are) V8 answers this search without scanning: U+FFFD cannot occur in it.
      if (text.indexOf('\uFFFD') >= 0 && !isUtf8(buf.subarray(start, end))) frame = NOT_UTF8;
      else {
        try {
          frame = JSON.parse(text);
        } catch {
          frame = NOT_JSON;
        }
      }
    } catch (e) {
      // this runs inside the socket's read: nothing may escape into it
      handleBatch(); // the frames before it first
      undecodable(e);
      return;
    }
    const i = batchSize++;
    batchText[i] = text;
    batchFrame[i] = frame;
    batchBytes[i] = end - start;
    batchAt[i] = at;
    if (batchSize - head >= MAX_BATCH && !handling) handleSlice();
  };

  /**
   * Handles the received frames in order from `head`; without `until` every one. With `until`
   * (`performance.now()` deadline) it stops after the frame that reaches it and keeps the rest.
   */
  const handleBatch = (until?: number): void => {
    if (handling) return; // a handler's call re-entered: the running loop takes every frame in order
    handling = true;
    let i = head;
    if (queue !== undefined) queue.until = until ?? Infinity;
    try {
      // deliveries of an earlier frame that wait go first; none of the next frame's before them
      if (queue !== undefined && queue.waiting() > 0 && !queue.drain()) return;
      while (i < batchSize) {
        const text = batchText[i]!;
        const frame = batchFrame[i];
        const bytes = batchBytes[i]!;
        const at = batchAt[i]!;
        batchText[i] = '';
        batchFrame[i] = undefined;
        i++;
        if (closed) continue; // close() from a handler: the rest of the read is dropped, as the socket would have dropped it
        handle(text, frame, bytes, at);
        if (queue !== undefined && queue.waiting() > 0) break; // the slice ended inside this frame's deliveries
        if (until !== undefined && i < batchSize && performance.now() >= until) break;
      }
    } finally {
      if (queue !== undefined) queue.until = Infinity;
      if (i >= batchSize) batchSize = head = 0;
      else head = i;
      handling = false;
    }
  };

  const resume = (): void => {
    resumeQueued = false;
    handleSlice();
    sliceUntil = 0;
  };
  /** The end of a read (or a full batch of it): every frame without `sliceMs`, else this turn's slice. */
  const handleSlice = (): void => {
    if (sliceMs === undefined || batchSize - head > MAX_BACKLOG) {
      handleBatch();
      return;
    }
    if (resumeQueued) return; // earlier frames wait for a later turn: these wait behind them
    if (sliceUntil === 0) sliceUntil = performance.now() + sliceMs;
    handleBatch(sliceUntil);
    if ((head < batchSize || (queue !== undefined && queue.waiting() > 0)) && !closed) {
      resumeQueued = true;
      setImmediate(resume);
    }
  };

  return {
    receive,
    readEnd(): void {
      handleSlice();
      sliceUntil = 0;
    },
    flush(): void {
      handleBatch();
    },
    close(): void {
      closed = true;
    },
  };
}
