/**
 * Frame dispatch: what each decoded frame is. A `message` goes to its room's entry in the router
 * (guard, dedup, delivery: room-router.ts); a `ping` is answered with `pong`; an `error` is reported
 * (and noted when it reads like a refused key); anything else, and every frame that is not valid
 * UTF-8, not JSON, not an object with a string `type` or nested deeper than `maxFrameDepth`, is
 * counted and reported. No frame of any size, depth or shape may stop the process: whatever slips
 * past the checks is counted and reported too.
 *
 * State: none of its own; it counts into the client's stats book.
 */
import type { UnixMs } from '../../../core/index.js';
import { exceedsDepth, mayExceedDepth } from '../connection/frame-limits.js';
import type { DatastreamEvent } from '../events.js';
import type { StatsBook } from '../stats.js';
import { NOT_JSON, NOT_UTF8 } from './frame-intake.js';
import type { RoomRouter } from './room-router.js';

export interface FrameDispatchOptions {
  readonly maxFrameDepth: number;
  readonly maxFrameBytes: number;
  /** Sees every frame's text before parsing (recording); a throw is counted as a handler error. */
  readonly onRawFrame?: ((text: string, receivedAt: UnixMs) => void) | undefined;
}

/** The server side of dispatch: the connection (bound late: it is created after the dispatch). */
export interface ServerLink {
  /** Sends a JSON frame when open; false otherwise. */
  send(frame: object): boolean;
  /** The server's error frame reads like a refused key (applied when the socket closes). */
  noteAuthError(): void;
}

export interface FrameDispatchPorts {
  readonly stats: StatsBook;
  readonly router: Pick<RoomRouter, 'lookup' | 'route'>;
  readonly server: ServerLink;
  readonly emit: (event: DatastreamEvent) => void;
}

export interface FrameDispatch {
  /** One decoded frame (the intake's handler); never throws. */
  readonly handle: (text: string, frame: unknown, bytes: number, at: UnixMs) => void;
  /** A frame whose decoding threw: counted as a frame and a frame error, reported. */
  readonly undecodable: (error: unknown) => void;
  /** The socket refused a message over `maxFrameBytes` (or in too many fragments) and will reconnect. */
  tooLarge(fragments: boolean | undefined): void;
}

const AUTH_TEXT = /auth|api.?key|unauthori[sz]ed|forbidden|invalid.?key|not allowed/i;
const PONG = { type: 'pong' } as const;

export function createFrameDispatch(o: FrameDispatchOptions, p: FrameDispatchPorts): FrameDispatch {
  const { stats: book, router, server, emit } = p;
  const s = book.s;
  const onRawFrame = o.onRawFrame;
  const maxFrameDepth = o.maxFrameDepth;

  const malformed = (reason: string, text: string): void => {
    s.parseFailures++;
    book.reject('frame', '', reason, 1);
    emit({ kind: 'malformed', reason, sample: text.slice(0, 200) });
  };

  const frameFailed = (e: unknown): void => {
    s.frameErrors++;
    emit({
      kind: 'malformed',
      reason: `handling the frame failed (${e instanceof Error ? `${e.name}: ${e.message}` : 'error'}); it was skipped`,
      sample: '',
    });
  };

  const handleFrame = (text: string, frame: unknown, bytes: number, at: UnixMs): void => {
    s.frames++;
    s.bytes += bytes;
    if (frame === NOT_UTF8) {
      malformed('not valid UTF-8', text);
      return;
    }
    if (onRawFrame !== undefined) {
      try {
        onRawFrame(text, at);
      } catch (e) {
        s.handlerErrors++;
        emit({ kind: 'handler-error', room: '(raw frame)', error: e });
      }
    }
    if (frame === NOT_JSON) {
      malformed('not JSON', text);
      return;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame) || typeof (frame as { type?: unknown }).type !== 'string') {
      malformed('not an object with a string type', text);
      return;
    }
    if (mayExceedDepth(text, maxFrameDepth) && exceedsDepth(frame, maxFrameDepth)) {
      s.tooDeepFrames++;
      const reason = `nested deeper than maxFrameDepth (${maxFrameDepth})`;
      book.reject('frame', '', reason, 1);
      emit({ kind: 'malformed', reason, sample: text.slice(0, 200) });
      return;
    }
    const f = frame as Record<string, unknown>;
    switch (f.type) {
      case 'message': {
        s.messages++;
        const room = f.room;
        const entry = typeof room === 'string' ? router.lookup(room) : undefined;
        if (entry === undefined) {
          if (typeof room !== 'string') malformed('message without a string room', text);
          else s.unroutedMessages++;
          return;
        }
        router.route(entry, f.data, at, 'live');
        return;
      }
      case 'ping':
        s.pings++;
        server.send(PONG);
        return;
      case 'error':
        s.serverErrors++;
        if (AUTH_TEXT.test(text)) server.noteAuthError();
        emit({ kind: 'server-error', frame: f });
        return;
      default:
        s.unknownFrames++;
        emit({ kind: 'unknown-frame', frameType: f.type as string, frame: f });
    }
  };

  return {
    handle(text, frame, bytes, at) {
      try {
        handleFrame(text, frame, bytes, at);
      } catch (e) {
        frameFailed(e);
      }
    },
    undecodable(e) {
      s.frames++;
      frameFailed(e);
    },
    tooLarge(fragments) {
      s.frames++;
      s.oversizedFrames++;
      const what = fragments === true ? 'a message in more frames than one message may take' : `frame larger than maxFrameBytes (${o.maxFrameBytes})`;
      emit({ kind: 'malformed', reason: `${what}; the socket was closed and will reconnect`, sample: '' });
    },
  };
}
