/**
 * The `record:` option of a deployment in a paper, live or daemon run: one call creates the
 * recorder (or nothing when `record:` is absent) and the taps a composition root wires. The CLI
 * and the daemon hand `runRecording` to the runtime through its port (runtime/compose/recording-port.ts).
 */
import type { Deployment } from '../../config/index.js';
import type { DataPort } from '../../engine/strategy/data-lookup.js';
import type { StreamFeed } from '../../engine/events/feed-port.js';
import type { RecordTap } from '../../runtime/handle/deployment-handle.js';
import type { RecordingReport, RunRecorderContext, RunRecording, RunTap } from '../../runtime/compose/recording-port.js';
import type { StopOptions } from '../../core/index.js';
import { frameRoom } from './frame-room.js';
import { createRecorder, endpointNames, type Recorder } from './recorder.js';

/** The run's recorder when `deployment.record` is set. */
export function openRunRecorder(d: Deployment, c: RunRecorderContext): Recorder | undefined {
  const r = d.record;
  if (!r) return undefined;
  const remote = d.endpoints.remote;
  return createRecorder({
    dir: r.dir,
    source: d.name,
    clock: c.clock,
    clockKind: c.simulator ? 'simulator' : 'wall',
    rooms: [],
    endpoints:
      c.simulator || !remote ? { datastream: 'simulator', base: 'simulator' } : endpointNames({ datastream: remote.datastreamUrl, base: remote.baseUrl }),
    gzip: r.gzip,
    rotateBytes: r.rotateBytes,
    rotateMs: r.rotateEvery,
    redactor: c.redactor,
    log: c.log.child({ part: 'recorder' }),
    seed: c.seed,
    unique: true,
  });
}

/**
 * `record:` of one holder of a shared connection (a daemon deployment): the frames of the rooms
 * this holder has joined at the moment they arrive, frames of no room (pings, errors), the
 * connection's events and gaps, and this holder's own `ctx.data` answers. Frames of rooms that
 * only other holders joined are left out: the recording is what this deployment received, and a
 * backtest of it replays this deployment alone. Starts the recorder. Returns the feed and data port to
 * give the engine (the feed counts the holder's rooms) and the stop that unties the taps, writes the
 * end line and stops the recorder.
 */
export async function recordShare(
  rec: Recorder,
  feed: StreamFeed,
  data: DataPort,
  tap: RecordTap,
): Promise<{ readonly feed: StreamFeed; readonly data: DataPort; stop(options?: StopOptions): Promise<RecordingReport> }> {
  const held = new Map<string, number>();
  const untapFrames = tap.onRawFrame((text, receivedAt) => {
    const room = frameRoom(text);
    if (room === undefined || held.has(room)) rec.onRawFrame(text, receivedAt);
    else rec.skipFrame();
  });
  const unwatch = rec.watch(tap);
  await rec.start();
  return {
    feed: {
      subscribe(room, handler) {
        held.set(room, (held.get(room) ?? 0) + 1);
        const unsubscribe = feed.subscribe(room, handler);
        let done = false;
        return () => {
          if (done) return;
          done = true;
          unsubscribe();
          const n = (held.get(room) ?? 1) - 1;
          if (n > 0) held.set(room, n);
          else held.delete(room);
        };
      },
      onGap: (handler) => feed.onGap(handler),
    },
    data: rec.data(data),
    stop(options) {
      untapFrames();
      unwatch();
      rec.end();
      return rec.stop(options);
    },
  };
}

/** The recorder behind the runtime's recording port (`deps.recording`). */
export const runRecording: RunRecording = {
  open(d, c): RunTap | undefined {
    const rec = openRunRecorder(d, c);
    if (!rec) return undefined;
    return {
      onRawFrame: rec.onRawFrame,
      watch: (client) => rec.watch(client),
      data: (port) => rec.data(port),
      start: () => rec.start(),
      stop: (options) => rec.stop(options),
      health: () => rec.health(),
      done: () => rec.done(),
      end: () => rec.end(),
      mark: (kind) => rec.mark(kind),
      manual: (entry) => rec.manual(entry),
      control: (mark) => rec.control(mark),
      share: (feed, data, tap) => recordShare(rec, feed, data, tap),
    };
  },
};
