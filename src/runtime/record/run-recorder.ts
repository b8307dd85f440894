/**
 * The `record:` option of a deployment in a paper, live or daemon run: one call creates the
 * recorder (or nothing when `record:` is absent) and the taps a composition root wires.
 */
import type { Clock, Logger, Redactor } from '../../core/index.js';
import type { Deployment } from '../../config/index.js';
import { createRecorder, endpointNames, type Recorder } from './recorder.js';

export interface RunRecorderContext {
  readonly clock: Clock;
  readonly redactor: Redactor;
  readonly log: Logger;
  /** The engine's seed (written to the header for the backtest). */
  readonly seed: number;
  /** True when the run is on the embedded simulator (its clock, no real endpoint names). */
  readonly simulator: boolean;
}

/** The run's recorder when `deployment.record` is set. */
export function openRunRecorder(d: Deployment, c: RunRecorderContext): Recorder | undefined {
  const r = d.record;
  if (!r) return undefined;
  const remote = d.endpoints.remote;
  return createRecorder({
    dir: r.dir, source: d.name, clock: c.clock, clockKind: c.simulator ? 'simulator' : 'wall', rooms: [],
    endpoints: c.simulator || !remote ? { datastream: 'simulator', base: 'simulator' } : endpointNames({ datastream: remote.datastreamUrl, base: remote.baseUrl }),
    gzip: r.gzip, rotateBytes: r.rotateBytes, rotateMs: r.rotateEvery, redactor: c.redactor, log: c.log.child({ part: 'recorder' }), seed: c.seed,
  });
}
