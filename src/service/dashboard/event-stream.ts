/**
 * The dashboard's Server-Sent Events stream. Every message that changes what the page shows
 * carries an `id:` that is a cursor into the daemon's two sequenced logs, prefixed with the boot id
 * of this daemon run: `<boot>.<decisionSeq>.<eventSeq>`. A reconnecting browser sends that id back
 * (the `Last-Event-ID` header, or the `lastEventId` query parameter when it opens a new stream with
 * a fresh ticket) and gets exactly the entries after it, in one synchronous read of the logs
 * followed by a subscription in the same tick, so nothing falls between the replay and the live
 * part. An id from another boot (the daemon restarted), an unreadable id, or a cursor whose entries
 * fell out of the bounded logs gets a `snapshot` with `reset: true` instead: the page rebuilds its
 * tables from it rather than showing a gap or duplicates.
 */
import type { ServerResponse } from 'node:http';
import type { DecisionEntry, DeploymentEvent } from '../../runtime/handle/deployment-handle.js';
import { detailView } from '../api-views.js';
import type { EventLog, LoggedEntry } from '../event-log.js';
import type { SlotView } from '../service-port.js';

/** Where a stream stands in the two logs of one daemon run. */
export interface StreamCursor {
  readonly boot: string;
  readonly decisions: number;
  readonly events: number;
}

export const formatEventId = (c: StreamCursor): string => `${c.boot}.${c.decisions}.${c.events}`;

/** Parses an SSE id made by {@link formatEventId}; undefined for anything else. */
export function parseEventId(id: string | undefined): StreamCursor | undefined {
  const m = id === undefined ? null : /^([0-9a-f]{8,32})\.(\d{1,15})\.(\d{1,15})$/.exec(id.trim());
  if (!m) return undefined;
  return { boot: m[1] ?? '', decisions: Number(m[2]), events: Number(m[3]) };
}

/** JSON with bigints as decimal strings (amounts stay exact). */
export const toJson = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));

export interface StreamSource {
  readonly boot: string;
  readonly decisions: EventLog<DecisionEntry>;
  readonly events: EventLog<DeploymentEvent>;
  readonly slots: () => readonly SlotView[];
}

export interface StreamOptions {
  /** How many recent decisions a snapshot carries (all deployments together). */
  readonly snapshotDecisions?: number;
  /** How many equity points per deployment a snapshot carries. */
  readonly snapshotEquityPoints?: number;
  /** Period of the `status` message (positions, pending, risk, feed) in ms. */
  readonly statusEveryMs?: number;
  readonly heartbeatEveryMs?: number;
  /** A client that lets this many bytes queue up is cut off (it reconnects and resumes). */
  readonly maxBufferedBytes?: number;
}

/** What the page needs to draw a deployment from scratch. */
export function snapshotOf(src: StreamSource, reset: boolean, o: StreamOptions = {}): Record<string, unknown> {
  const slots = src.slots();
  const decisions = src.decisions.recent({ limit: o.snapshotDecisions ?? 500 }).reverse();
  const equity: Record<string, [number, string][]> = {};
  for (const slot of slots) {
    equity[slot.name] = src.events
      .recent({ limit: o.snapshotEquityPoints ?? 2_000, deployment: slot.name, filter: (e) => e.type === 'equity' })
      .reverse()
      .map((e) => (e.value.type === 'equity' ? [e.value.at, e.value.equityLamports.toString()] : [0, '0']));
  }
  return { boot: src.boot, reset, deployments: slots.map(detailView), decisions: decisions.map(decisionMessage), equity };
}

const decisionMessage = (e: LoggedEntry<DecisionEntry>): Record<string, unknown> => ({ seq: e.seq, deployment: e.deployment, entry: e.value });
const eventMessage = (e: LoggedEntry<DeploymentEvent>): Record<string, unknown> => ({ seq: e.seq, deployment: e.deployment, event: e.value });

/**
 * Serves one stream on `res` until the client goes or `close` is called. Returns the close
 * function (the daemon ends every stream before its server closes).
 */
export function serveEventStream(res: ServerResponse, src: StreamSource, lastEventId: string | undefined, o: StreamOptions = {}): () => void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const maxBuffered = o.maxBufferedBytes ?? 4 * 1024 * 1024;
  let closed = false;
  const timers: NodeJS.Timeout[] = [];
  const unsubs: (() => void)[] = [];
  const close = (): void => {
    if (closed) return;
    closed = true;
    for (const t of timers) clearInterval(t);
    for (const u of unsubs) u();
    res.end();
  };
  let cursor: StreamCursor = { boot: src.boot, decisions: src.decisions.lastSeq, events: src.events.lastSeq };
  const write = (event: string, data: string, withId: boolean): void => {
    if (closed) return;
    res.write(`${withId ? `id: ${formatEventId(cursor)}\n` : ''}event: ${event}\ndata: ${data}\n\n`);
    // A reader that does not keep up is cut off rather than buffered without bound: it
    // reconnects with its last id and gets what it missed from the logs.
    if (res.writableLength > maxBuffered) {
      close();
      res.destroy();
    }
  };

  // Replay and subscription happen in one synchronous block: no entry can fall between them.
  const from = parseEventId(lastEventId);
  const resumable = from !== undefined && from.boot === src.boot && from.decisions <= src.decisions.lastSeq && from.events <= src.events.lastSeq;
  let replayed = false;
  if (resumable) {
    const d = src.decisions.page({ after: from.decisions, limit: Number.MAX_SAFE_INTEGER });
    const e = src.events.page({ after: from.events, limit: Number.MAX_SAFE_INTEGER });
    if (!d.truncated && !e.truncated) {
      replayed = true;
      write('hello', toJson({ boot: src.boot, resumed: true }), false);
      cursor = { ...cursor, decisions: from.decisions, events: from.events };
      for (const x of d.entries) {
        cursor = { ...cursor, decisions: x.seq };
        write('decision', toJson(decisionMessage(x)), true);
      }
      cursor = { ...cursor, decisions: src.decisions.lastSeq };
      for (const x of e.entries) {
        cursor = { ...cursor, events: x.seq };
        write('event', toJson(eventMessage(x)), true);
      }
      cursor = { ...cursor, events: src.events.lastSeq };
    }
  }
  if (!replayed) {
    cursor = { boot: src.boot, decisions: src.decisions.lastSeq, events: src.events.lastSeq };
    write('snapshot', toJson(snapshotOf(src, lastEventId !== undefined, o)), true);
  }
  unsubs.push(
    src.decisions.subscribe((x) => {
      cursor = { ...cursor, decisions: x.seq };
      write('decision', toJson(decisionMessage(x)), true);
    }),
  );
  unsubs.push(
    src.events.subscribe((x) => {
      cursor = { ...cursor, events: x.seq };
      write('event', toJson(eventMessage(x)), true);
    }),
  );
  const status = (): void => write('status', toJson({ deployments: src.slots().map(detailView) }), false);
  status();
  timers.push(setInterval(status, o.statusEveryMs ?? 1_000));
  timers.push(setInterval(() => !closed && res.write(': ping\n\n'), o.heartbeatEveryMs ?? 15_000));
  res.on('close', close);
  return close;
}
