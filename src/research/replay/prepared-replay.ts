/**
 * Walks a recording's lines for one backtest: `LineCursor` is what the backtest's loop reads, over
 * the prepared form (here: numbers out of typed arrays, no JSON) or over the recording files
 * streamed (recording-stream.ts). Frames are handed to the replay feed: a price row becomes the
 * normaliser's tick (with the SOL/USD rate learnt from the ticks delivered so far, as the engine's
 * normaliser learns it), a stored event is decoded and handed to the engine, typed rows and kept
 * frames go through the client's router.
 */
import { ChainpilotError, type UnixMs } from '../../core/index.js';
import type { DomainEvent } from '../../engine/events/events.js';
import { PriceTickEvent } from '../../engine/events/price-tick.js';
import type { ManualDecision } from '../../engine/logs/decision-log.js';
import type { ControlMark } from '../../engine/logs/control-mark.js';
import { readTreeAt } from './prepared-codec.js';
import { K, PF, type Recording } from './prepared-recording.js';
import type { RecordLine } from './recording-format.js';
import type { ReplayFeed } from './replay-feed.js';

export type DataLine = Extract<RecordLine, { kind: 'data' }>;

/** What the backtest needs of the whole recording before its first line. */
export interface ReplayBounds {
  /** Time of the first `start` line (null: none). */
  readonly startT: number | null;
  /** Cursor index of the run's end line (the last `drained`, else the last `end`), -1 when none. */
  readonly endIndex: number;
  readonly endT: number | null;
  /** Time of the last line (null: no line). */
  readonly lastT: number | null;
  /** Lines, when known up front (progress). */
  readonly totalLines: number | undefined;
}

/** The backtest loop's view of the recording's lines, one at a time. */
export interface LineCursor {
  /** Moves to the next line available now; false when none is (then `refill`). */
  next(): boolean;
  /** Waits for more lines (a streamed recording); false at the end of the recording. */
  refill(): Promise<boolean>;
  /** The current line: its kind (`K`), run-clock time and index (as `ReplayBounds.endIndex` counts). */
  readonly kind: number;
  readonly t: number;
  readonly index: number;
  /** Hands the current frame line to the feed. */
  deliver(feed: ReplayFeed): void;
  gap(): { readonly startedAt: number; readonly endedAt: number; readonly rooms: readonly string[] };
  /** The current data line: the same object the replay's `ctx.data` port was given. */
  data(): DataLine;
  manual(): ManualDecision;
  control(): ControlMark;
}

/** Whether a cursor kind is a frame. */
export const isFrameKind = (k: number): boolean => k <= K.TEXT;

const usdOnly = (room: string): ChainpilotError =>
  new ChainpilotError(
    'ENGINE_BAD_FRAME',
    `frame on room "${room}" rejected: a USD-only price before any SOL/USD rate was seen (no price_quote yet on a price:token room)`,
    { retry: 'not_retryable', context: { room } },
  );

/** The bounds of a prepared recording. */
export function preparedBounds(r: Recording): ReplayBounds {
  const m = r.meta;
  return {
    startT: m.startT,
    endIndex: m.endIndex,
    endT: m.endIndex >= 0 ? r.columns.t[m.endIndex]! : null,
    lastT: m.lastT,
    totalLines: r.lineCount,
  };
}

/** A cursor over a prepared recording (one per replay; the recording itself is never written). */
class PreparedCursor implements LineCursor {
  kind = -1;
  t = 0;
  index = -1;
  /** USD per SOL from the price ticks delivered so far (the engine normaliser's `solUsd`). */
  private solUsd = 0;
  private readonly n: number;

  constructor(private readonly r: Recording) {
    this.n = r.lineCount;
  }

  next(): boolean {
    const i = ++this.index;
    if (i >= this.n) {
      this.index = this.n;
      return false;
    }
    this.kind = this.r.columns.kind[i]!;
    this.t = this.r.columns.t[i]!;
    return true;
  }

  refill(): Promise<boolean> {
    return Promise.resolve(false);
  }

  deliver(feed: ReplayFeed): void {
    const c = this.r.columns;
    const i = this.index;
    const kind = this.kind;
    if (kind === K.RAW) {
      feed.frame(readTreeAt(c.tree, c.aux[i]!), undefined, c.rt[i]! as UnixMs);
      return;
    }
    if (kind === K.TEXT) {
      feed.frame(undefined, readTreeAt(c.tree, c.aux[i]!) as string, c.rt[i]! as UnixMs);
      return;
    }
    const room = this.r.strings[c.room[i]!]!;
    const entry = feed.enter(room);
    if (entry === undefined) return;
    const fp = c.fp[i]!;
    if (kind === K.ROWS) {
      feed.rows(entry, readTreeAt(c.tree, c.aux[i]!) as unknown[], fp, c.fpHi, c.fpLo, c.rt[i]! as UnixMs);
      return;
    }
    const n = fp >= 0 ? feed.admit(entry, true, c.fpHi[fp]!, c.fpLo[fp]!) : feed.admit(entry, false, 0, 0);
    for (let k = 0; k < n; k++) {
      if (kind === K.PRICE) this.price(feed, room, i);
      else feed.deliver(readTreeAt(c.tree, c.aux[i]!) as DomainEvent);
    }
  }

  /** The tick the engine's normaliser builds from this price row (src/engine/events/normalise.ts). */
  private price(feed: ReplayFeed, room: string, i: number): void {
    const c = this.r.columns;
    const S = this.r.strings;
    const row = c.aux[i]!;
    const flags = c.pFlags[row]!;
    const aggregated = (flags & PF.AGGREGATED) !== 0;
    const inSol = c.pSol[row]!;
    const usd = c.pUsd[row]!;
    const hasSol = inSol === inSol;
    if (!aggregated && hasSol) this.solUsd = usd / inSol;
    if (!hasSol && !(this.solUsd > 0)) {
      feed.refuse(room, usdOnly(room));
      return;
    }
    const liq = c.pLiq[row]!;
    const fee = c.pFee[row]!;
    const at = c.pAt[row]!;
    feed.deliver(
      new PriceTickEvent(
        room,
        c.rt[i]! as UnixMs,
        'live',
        S[c.pMint[row]!]!,
        hasSol ? inSol : Number.NaN,
        this.solUsd,
        usd === usd ? usd : undefined,
        aggregated,
        S[c.pPool[row]!],
        S[c.pMarket[row]!],
        liq === liq ? liq : undefined,
        (flags & PF.SOL_RES) !== 0 ? c.pSolRes[row]! : undefined,
        (flags & PF.TOKEN_RES) !== 0 ? c.pTokenRes[row]! : undefined,
        fee === fee ? fee : undefined,
        (at === at ? at : undefined) as UnixMs,
      ),
    );
  }

  /** The current line's value (a gap, manual entry or control mark, as the recording line held it). */
  private tree(): unknown {
    return readTreeAt(this.r.columns.tree, this.r.columns.aux[this.index]!);
  }

  gap(): { startedAt: number; endedAt: number; rooms: string[] } {
    return this.tree() as { startedAt: number; endedAt: number; rooms: string[] };
  }

  data(): DataLine {
    const l = this.r.dataAt.get(this.index);
    if (l === undefined)
      throw new ChainpilotError('RECORDING_CACHE_CORRUPT', `prepared recording: line ${this.index} is not a data line`, { retry: 'not_retryable' });
    return l;
  }

  manual(): ManualDecision {
    return this.tree() as ManualDecision;
  }

  control(): ControlMark {
    return this.tree() as ControlMark;
  }
}

export function preparedCursor(r: Recording): LineCursor {
  return new PreparedCursor(r);
}
