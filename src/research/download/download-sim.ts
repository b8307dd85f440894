/**
 * `chainpilot download --sim`: the embedded simulator on its manual clock, run (no client, as fast
 * as the model goes) from `startAt` for `durationMs`, then downloaded from its REST history like
 * the service. The same seed, start and duration give the same market as `record --sim` (the
 * market does not depend on who listens), so the two recordings of one window can be compared.
 */
import { randomBytes } from 'node:crypto';
import { manualClock, type UnixMs } from '../../core/index.js';
import { startSimulator, type StartSimulatorOptions } from '../../sim/start-simulator.js';
import { DEFAULT_SIM_START } from '../record/record-sim.js';
import { runDownload, type DownloadOptions, type DownloadResult } from './run-download.js';

export interface DownloadSimOptions extends Omit<DownloadOptions, 'baseUrl' | 'apiKey' | 'fromMs' | 'toMs' | 'endpointName' | 'clock' | 'sourceId'> {
  readonly seed: number;
  readonly durationMs: number;
  /** Simulated start (default 2026-01-01T00:00:00Z, as `record --sim`). */
  readonly startAt?: number;
  /** Simulator faults (e.g. `{ rest: { rateLimitShare: 0.1 } }`) to try the download's politeness. */
  readonly faults?: StartSimulatorOptions['faults'];
  readonly onSimulated?: (simulatedMs: number) => void;
}

export async function downloadSimulator(o: DownloadSimOptions): Promise<DownloadResult> {
  const startAt = (o.startAt ?? DEFAULT_SIM_START) as UnixMs;
  const clock = manualClock(startAt);
  const apiKey = randomBytes(16).toString('hex');
  o.redactor?.add(apiKey);
  const sim = await startSimulator({ seed: o.seed, clock, startAt, apiKey, services: [], ...(o.faults ? { faults: o.faults } : {}) });
  try {
    for (let t = 0; t < o.durationMs && !o.signal?.aborted; t += 1_000) {
      clock.advance(Math.min(1_000, o.durationMs - t));
      if (t % 60_000 === 0) {
        o.onSimulated?.(t);
        await new Promise((r) => setImmediate(r));
      }
    }
    return await runDownload({
      ...o,
      baseUrl: sim.urls.base,
      apiKey,
      fromMs: startAt,
      toMs: startAt + o.durationMs,
      endpointName: 'simulator',
      clock: 'simulator',
      sourceId: `simulator seed ${o.seed}`,
    });
  } finally {
    await sim.stop();
  }
}
