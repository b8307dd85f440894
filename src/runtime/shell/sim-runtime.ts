/**
 * Composition root of `chainpilot sim`: starts the embedded simulator on the wall clock (scaled by
 * `speed`), prints its URLs, and runs until the signal aborts.
 */
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../../sim/start-simulator.js';
import type { SimServiceFactory } from '../../sim/market-port.js';
import { ledgerServices } from '../../sim/ledger/index.js';

export interface SimRuntimeOptions {
  readonly port?: number;
  readonly host?: string;
  readonly seed?: number | string;
  readonly speed?: number | 'max';
  readonly faults?: string;
  readonly apiKey?: string;
  /**
   * Services to start with the simulator. Default: the ledger with its JSON-RPC and swap service
   * (`ledgerServices`), funding `fund` wallets. Pass `[]` to serve REST and the Datastream only.
   */
  readonly services?: readonly SimServiceFactory[];
  /** Wallets to airdrop SOL to when the ledger starts (rehearsing live mode), in lamports. */
  readonly fund?: readonly { readonly address: string; readonly lamports: bigint }[];
}

/**
 * The default services of `chainpilot sim`: the ledger with its landing model (docs/simulator.md
 * "Landing"), JSON-RPC and swap service, funding the given wallets.
 */
export function defaultSimServices(fund: SimRuntimeOptions['fund'] = []): SimServiceFactory[] {
  return [ledgerServices({ landing: {}, onLedger: (ledger) => fund.forEach((f) => ledger.airdrop(f.address, f.lamports)) })];
}

export { parseFunding } from './funding.js';

/** Lines printed on start: every URL, and the key when the simulator generated it. */
export function describeSimulator(sim: RunningSimulator, keyGiven: boolean): string[] {
  const lines = Object.entries(sim.urls).map(([name, url]) => `${name.padEnd(11)} ${url}`);
  lines.push(keyGiven ? 'api key     (the one you passed with --api-key or CHAINPILOT_SIM_API_KEY)' : `api key     ${sim.apiKey}`);
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
    services: options.services ?? defaultSimServices(options.fund),
  };
  const sim = await startSimulator(start);
  for (const line of describeSimulator(sim, options.apiKey !== undefined)) out(line);
  for (const f of options.fund ?? []) out(`funded      ${f.address} with ${f.lamports} lamports`);
  try {
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await sim.stop();
  }
}
