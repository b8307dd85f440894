/**
 * The recording format (JSON Lines, one record a line, gzip by default). The first line of every
 * file is a header; then, in the order they happened on the run clock:
 *
 * - a frame: `{"t":T,"f":RAW}` where RAW is the frame's text exactly as received (it is JSON, so it
 *   is embedded verbatim, never re-serialised), or `{"t":T,"x":"..."}` with the text as a JSON
 *   string when it is not embeddable (not JSON, or it contains a line break). `"rt"` is the
 *   feed's own receive time when it differs from the run clock's `t`.
 * - a connection event: `{"k":"conn","t":T,"e":"connected"|"disconnected","reason":...}`.
 * - a gap: `{"k":"gap","t":T,"s":START,"e":END,"rooms":[...]}` (the feed's gap, as the engine got it).
 * - a data answer: `{"k":"data","t":T,"q":ASKED_AT,"path":...,"query":{...},"body":...}` (or
 *   `"error":{"code","message"}`), written when a `ctx.data` look-up settled.
 * - the start: `{"k":"start","t":T}` when the recorded run's engine started (its strategies' timers
 *   count from there).
 * - the stop: `{"k":"stop","t":T}` when the recorded run's stop began (from then on it admitted no new
 *   intent: `ENGINE_STOPPED`), and `{"k":"drained","t":T}` when its drain ended (intents still in
 *   flight then expired); both absent in runs without a drain (`record`, older recordings).
 * - a manual decision: `{"k":"manual","t":T,"m":ENTRY}` when an operator acted on the run (close,
 *   force an entry, cancel an intent); ENTRY is the decision log's `manual` line as journaled (who,
 *   why, what), and a backtest applies the same action through its engine at `t`.
 * - a control mark: `{"k":"ctl","t":T,"c":MARK}` when what the run admits changed: MARK is
 *   `{"kind":"entries","buy":REFUSAL|null,"sell":REFUSAL|null}` (an operator's pause or resume, a
 *   pause for the feed, a halt; REFUSAL is `{"code","reason"}` as the run refused with) or
 *   `{"kind":"kill","on":BOOL,"reason":TEXT|null}` (the kill switch). A backtest refuses and kills
 *   from `t` exactly as the run did; absent in older recordings and in runs that never changed.
 * - the end: `{"k":"end","t":T}` when the recorded run stopped (absent after a crash).
 *
 * A frame line starts with `{"t"`, every other line with `{"k"`: a reader tells them apart with
 * one character.
 */
import { ChainpilotError } from '../../core/index.js';
import type { ManualDecision } from '../../engine/logs/decision-log.js';
import type { AdmissionRefusal, ControlMark } from '../../engine/logs/control-mark.js';

export const RECORDING_FORMAT = 1;

export interface RecordingHeader {
  readonly k: 'header';
  readonly format: number;
  readonly chainpilot: string;
  /** Rooms joined at the start (more may be joined while recording; frames carry their room). */
  readonly rooms: readonly string[];
  /** Endpoint names without keys: `simulator`, or the service's host names. */
  readonly endpoints: Readonly<Record<string, string>>;
  /** `wall` (system clock) or `simulator` (the embedded simulator's clock). */
  readonly clock: 'wall' | 'simulator';
  /** Run-clock time when this recording (part 0) started. */
  readonly startedAt: number;
  /** Part number of this file (rotation), and run-clock time this part started. */
  readonly part: number;
  readonly partStartedAt: number;
  /** What was recorded: a deployment's name, or `rooms`. */
  readonly source: string;
  /** Seed of the recorded run's engine (ids), so a backtest of it uses the same one. */
  readonly seed?: number;
  /**
   * Room patterns (`*` matches one segment) whose every frame of the window is in the recording, so
   * a silent one was truly silent (a download sets it for the rooms it rebuilds).
   */
  readonly covered?: readonly string[];
  /** Room patterns this recording cannot hold (a download: what REST history cannot rebuild). */
  readonly absent?: readonly string[];
  /** How the recording was made when not by recording the Datastream: `download`. */
  readonly origin?: string;
}

export type RecordLine =
  | { readonly kind: 'frame'; readonly t: number; readonly rt: number | undefined; readonly frame: unknown; readonly text: string | undefined }
  | { readonly kind: 'conn'; readonly t: number; readonly event: 'connected' | 'disconnected'; readonly reason: string | undefined }
  | { readonly kind: 'gap'; readonly t: number; readonly startedAt: number; readonly endedAt: number; readonly rooms: readonly string[] }
  | {
      readonly kind: 'data';
      readonly t: number;
      readonly askedAt: number;
      readonly key: string;
      readonly path: string;
      readonly body: unknown;
      readonly error: { readonly code: string; readonly message: string } | undefined;
    }
  | { readonly kind: 'start'; readonly t: number }
  | { readonly kind: 'stop'; readonly t: number }
  | { readonly kind: 'drained'; readonly t: number }
  | { readonly kind: 'manual'; readonly t: number; readonly entry: ManualDecision }
  | { readonly kind: 'control'; readonly t: number; readonly mark: ControlMark }
  | { readonly kind: 'end'; readonly t: number };

export type DataQuery = Readonly<Record<string, string | number | boolean>> | undefined;

/** The look-up key of a `ctx.data` call: the path and its query in key order (as the engine caches it). */
export function dataKey(path: string, query: DataQuery): string {
  return `${path}?${
    query
      ? Object.keys(query)
          .sort()
          .map((k) => `${k}=${String(query[k])}`)
          .join('&')
      : ''
  }`;
}

/** A frame line: the raw text embedded verbatim when it is one line of JSON (the caller knows). */
export function frameLine(t: number, rt: number | undefined, text: string, embeddable: boolean): string {
  const rtPart = rt === undefined || rt === t ? '' : `,"rt":${rt}`;
  return embeddable ? `{"t":${t}${rtPart},"f":${text}}\n` : `{"t":${t}${rtPart},"x":${JSON.stringify(text)}}\n`;
}

/** Cheap test that `text` can be embedded verbatim (the client confirms it parses: see the recorder). */
export function looksEmbeddable(text: string): boolean {
  return text.length > 1 && text.charCodeAt(0) === 123 && text.charCodeAt(text.length - 1) === 125 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0;
}

/** Parses one non-header line. Throws on a line that is not a record (the reader counts and names it). */
export function parseRecordLine(line: string): RecordLine {
  const o = JSON.parse(line) as Record<string, unknown>;
  if (line.charCodeAt(2) === 116 /* t */) {
    const t = o['t'] as number;
    const rt = o['rt'] as number | undefined;
    if ('f' in o) return { kind: 'frame', t, rt, frame: o['f'], text: undefined };
    return { kind: 'frame', t, rt, frame: undefined, text: String(o['x']) };
  }
  const t = Number(o['t']);
  switch (o['k']) {
    case 'conn':
      return {
        kind: 'conn',
        t,
        event: o['e'] === 'connected' ? 'connected' : 'disconnected',
        reason: typeof o['reason'] === 'string' ? o['reason'] : undefined,
      };
    case 'gap':
      return { kind: 'gap', t, startedAt: Number(o['s']), endedAt: Number(o['e']), rooms: (o['rooms'] as string[] | undefined) ?? [] };
    case 'data': {
      const path = String(o['path']);
      const query = (o['query'] as DataQuery) ?? undefined;
      const err = o['error'] as { code: string; message: string } | undefined;
      return { kind: 'data', t, askedAt: Number(o['q']), key: dataKey(path, query), path, body: o['body'], error: err };
    }
    case 'start':
      return { kind: 'start', t };
    case 'stop':
      return { kind: 'stop', t };
    case 'drained':
      return { kind: 'drained', t };
    case 'end':
      return { kind: 'end', t };
    case 'manual': {
      const m = o['m'] as ManualDecision | undefined;
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks parsed JSON at runtime
      if (typeof m !== 'object' || m === null || m.kind !== 'manual' || !['close', 'enter', 'cancel'].includes(m.action))
        throw new ChainpilotError('RECORDING_INVALID', 'a manual line without its manual decision', { retry: 'not_retryable' });
      return { kind: 'manual', t, entry: m };
    }
    case 'ctl':
      return { kind: 'control', t, mark: controlMark(o['c']) };
    default:
      throw new ChainpilotError('RECORDING_INVALID', `unknown record kind ${JSON.stringify(o['k'])}`, { retry: 'not_retryable' });
  }
}

const invalidControl = (what: string): ChainpilotError =>
  new ChainpilotError('RECORDING_INVALID', `a ctl line ${what}: expected {"kind":"entries","buy":...,"sell":...} or {"kind":"kill","on":...,"reason":...}`, {
    retry: 'not_retryable',
  });

function refusal(v: unknown, side: string): AdmissionRefusal | null {
  if (v === null) return null;
  if (typeof v !== 'object') throw invalidControl(`with a ${side} refusal that is not an object or null`);
  const r = v as Record<string, unknown>;
  if (typeof r['code'] !== 'string' || typeof r['reason'] !== 'string') throw invalidControl(`whose ${side} refusal lacks its code or reason`);
  return { code: r['code'] as AdmissionRefusal['code'], reason: r['reason'] };
}

/** The control mark of a `ctl` line, checked (a recording is input: a line that does not say what it changed is refused, named). */
function controlMark(c: unknown): ControlMark {
  if (typeof c !== 'object' || c === null) throw invalidControl('without its mark');
  const m = c as Record<string, unknown>;
  if (m['kind'] === 'entries') return { kind: 'entries', buy: refusal(m['buy'], 'buy'), sell: refusal(m['sell'], 'sell') };
  if (m['kind'] === 'kill') {
    if (typeof m['on'] !== 'boolean') throw invalidControl('whose kill mark lacks "on"');
    const reason = m['reason'];
    if (reason !== null && typeof reason !== 'string') throw invalidControl('whose kill reason is not text or null');
    return { kind: 'kill', on: m['on'], reason };
  }
  throw invalidControl(`of unknown kind ${JSON.stringify(m['kind'])}`);
}
