/**
 * Composition root of `chainpilot sim`: starts the embedded simulator on the wall clock (scaled by
 * `speed`), prints its URLs, and runs until the signal aborts.
 */
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../sim/start-simulator.js';
import type { SimServiceFactory } from '../sim/market-port.js';

export interface SimRuntimeOptions {
  readonly port?: number;
  readonly host?: string;
  readonly seed?: number | string;
  readonly speed?: number | 'max';
  readonly faults?: string;
  readonly apiKey?: string;
  /** Extra services (ledger, RPC, swap) to start with the simulator. */
  readonly services?: readonly SimServiceFactory[];
}

/** Lines printed on start: every URL, and the key when the simulator generated it. */
export function describeSimulator(sim: RunningSimulator, keyGiven: boolean): string[] {
  const lines = Object.entries(sim.urls).map(([name, url]) => `${name.padEnd(11)} ${url}`);
  lines.push(keyGiven ? 'api key     (the one you passed with --api-key)' : `api key     ${sim.apiKey}`);
  lines.push(`datastream clients connect to ${sim.urls.datastream}/<API_KEY>`);
  return lines;
}

/** Starts the simulator, writes its URLs to `out`, and resolves after `signal` aborts and everything stopped. */
export async function runSimulator(options: SimRuntimeOptions, out: (line: string) => void, signal: AbortSignal): Promise<void> {
  const start: StartSimulatorOptions = {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.speed !== undefined ? { speed: options.speed } : {}),
    ...(options.faults !== undefined ? { faults: options.faults } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.services ? { services: options.services } : {}),
  };
  const sim = await startSimulator(start);
  for (const line of describeSimulator(sim, options.apiKey !== undefined)) out(line);
  try {
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await sim.stop();
  }
}
