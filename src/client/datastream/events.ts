/** Typed events the Datastream client reports besides room messages. None of them is a crash. */
import type { ChainpilotError, UnixMs } from '../../core/index.js';
import type { StreamGap } from './stream-message.js';
import type { DownReason } from './connection/connection.js';

export type DatastreamEvent =
  | { readonly kind: 'connected'; readonly at: UnixMs; readonly rooms: number }
  | { readonly kind: 'disconnected'; readonly at: UnixMs; readonly reason: DownReason }
  | { readonly kind: 'attempt-failed'; readonly reason: DownReason; readonly detail: string }
  /** The breaker tripped (the key was refused): the client stays down until a new one is created. */
  | { readonly kind: 'stopped'; readonly error: ChainpilotError }
  | { readonly kind: 'gap'; readonly gap: StreamGap }
  /** `{type: 'error', ...}` from the server, as sent. */
  | { readonly kind: 'server-error'; readonly frame: Readonly<Record<string, unknown>> }
  /** A frame whose `type` the spec does not define (e.g. an acknowledgement), as sent. */
  | { readonly kind: 'unknown-frame'; readonly frameType: string; readonly frame: Readonly<Record<string, unknown>> }
  /** Not JSON, or not an object with a string `type`. `sample` is the first 200 characters. */
  | { readonly kind: 'malformed'; readonly reason: string; readonly sample: string }
  | { readonly kind: 'invalid-payload'; readonly room: string; readonly reason: string; readonly rejected: number }
  | { readonly kind: 'overflow'; readonly room: string; readonly droppedTotal: number }
  | { readonly kind: 'handler-error'; readonly room: string; readonly error: unknown }
  /** `truncated`: `backfillMaxPages` was reached while REST still had pages (events may be missing). */
  | { readonly kind: 'backfill-done'; readonly room: string; readonly rows: number; readonly pages: number; readonly truncated: boolean }
  | { readonly kind: 'backfill-failed'; readonly room: string; readonly error: ChainpilotError }
  | { readonly kind: 'closed' };
