/**
 * The port through which a deployment records itself (`record:` in its file). The runtime only
 * taps its connection here; the recorder itself is research's (src/research/record/run-recorder.ts,
 * `runRecording`), handed in by whoever composes the run (the CLI, the daemon), since runtime
 * never imports research.
 */
import type { Clock, Lifecycle, Logger, Redactor, StopOptions, UnixMs } from '../../core/index.js';
import type { ControlMark } from '../../engine/logs/control-mark.js';
import type { Deployment } from '../../config/index.js';
import type { DataPort } from '../../engine/strategy/data-lookup.js';
import type { ManualDecision } from '../../engine/logs/decision-log.js';
import type { StreamFeed } from '../../engine/events/feed-port.js';
import type { DatastreamClient } from '../../client/datastream/index.js';

export type { AdmissionRefusal, ControlMark } from '../../engine/logs/control-mark.js';

/** What a holder of a shared connection records from: each frame's raw text as received, and the client's events. */
export interface RecordTap {
  /** Calls `handler` with every frame the connection receives (every holder's rooms); returns the removal. */
  onRawFrame(handler: (text: string, receivedAt: UnixMs) => void): () => void;
  onEvent: DatastreamClient['onEvent'];
}

export interface RunRecorderContext {
  readonly clock: Clock;
  readonly redactor: Redactor;
  readonly log: Logger;
  /** The engine's seed (written to the header for the backtest). */
  readonly seed: number;
  /** True when the run is on the embedded simulator (its clock, no real endpoint names). */
  readonly simulator: boolean;
}

/** What a recording ended with. */
export interface RecordingReport {
  /** Path prefix of the recording's files. */
  readonly prefix: string;
  /** Every file written, in order. */
  readonly files: readonly string[];
  /** Lines handed to the writing thread. */
  readonly lines: number;
  /** Write errors (logged where they happened). */
  readonly errors: number;
  /**
   * False when the stop's deadline passed before the writing thread caught up: the thread was
   * ended at once and the last file may be cut short (a replay reads up to the cut).
   */
  readonly complete: boolean;
}

/**
 * One run's recorder, as the composition roots wire it: a {@link Lifecycle} whose `start` writes
 * the start line (right before the engine starts) and whose `stop` writes the end line if `end`
 * has not, waits for the writing thread (at most `drainMs`) and closes the files.
 */
export interface RunTap extends Lifecycle<RecordingReport> {
  /** The Datastream client's `onRawFrame` option. */
  readonly onRawFrame: (text: string, receivedAt: UnixMs) => void;
  /** Records `client`'s connection events and gaps. */
  watch(client: Pick<DatastreamClient, 'onEvent'>): () => void;
  /** Wraps the run's `ctx.data` port so that every answer is recorded. */
  data(port: DataPort): DataPort;
  /** Writes the end line (call when the run stops, before the engine drains). */
  end(): void;
  /** Writes a stop mark: `stop` when the run's stop begins (no new intents), `drained` when its drain ended. */
  mark(kind: 'stop' | 'drained'): void;
  /** Writes an operator's manual decision (as journaled, before the action ran), so a backtest applies it at the same instant. */
  manual(entry: ManualDecision): void;
  /** Writes a change of what the run admits (pause, feed pause, halt, kill switch), so a backtest refuses the same intents. */
  control(mark: ControlMark): void;
  /**
   * Records one holder of a shared connection (a daemon deployment): the frames of the rooms this
   * holder joined, the connection's events and its own `ctx.data` answers; starts the recorder.
   * Returns the feed and data port to give the engine, and the stop that unties the taps and stops
   * the recorder.
   */
  share(
    feed: StreamFeed,
    data: DataPort,
    tap: RecordTap,
  ): Promise<{ readonly feed: StreamFeed; readonly data: DataPort; stop(options?: StopOptions): Promise<RecordingReport> }>;
}

export interface RunRecording {
  /** The run's recorder when `deployment.record` is set, else undefined. */
  open(d: Deployment, c: RunRecorderContext): RunTap | undefined;
}
