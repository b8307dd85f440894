/**
 * The network check of live mode: the deployment's `network` is compared with what the RPC says
 * it is, before the journal is opened or anything is signed.
 *
 * - `simulator`: `getVersion` must report a `solana-core` ending in `-chainpilot-sim` (the embedded
 *   simulator answers `2.2.0-chainpilot-sim`).
 * - `mainnet-beta`, `devnet`, `testnet`: `getVersion` must not be the simulator's, and
 *   `getGenesisHash` must equal that cluster's genesis hash (the one value that names a cluster;
 *   versions and URLs do not). An RPC that cannot answer is a refusal, never a pass.
 *
 * A transient failure of a check (a retryable RPC or HTTP error, or JSON-RPC -32603 "internal
 * error", which nodes answer under load) is retried a bounded number of times with capped
 * exponential backoff and full jitter on the run clock; when every attempt failed, the start is
 * refused with RUNTIME_LIVE_NETWORK_UNREACHABLE naming the method, the attempts and the last error.
 */
import { backoffWithJitter, ChainpilotError, clockSleep, describeError, isChainpilotError, seededRandom, systemClock, type Clock } from '../../core/index.js';

export type LiveNetwork = 'simulator' | 'mainnet-beta' | 'devnet' | 'testnet';

/** Genesis hashes of the public Solana clusters. */
export const GENESIS_HASHES: Readonly<Record<Exclude<LiveNetwork, 'simulator'>, string>> = {
  'mainnet-beta': '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
  testnet: '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY',
};

const SIM_VERSION_SUFFIX = '-chainpilot-sim';

/** The one RPC method the check needs (the JSON-RPC client's generic `call`). */
export interface NetworkProbe {
  call(method: string, params: unknown[], opts?: { signal?: AbortSignal }): Promise<unknown>;
}

/** How transient failures of the check are retried (defaults: 5 attempts, 250 ms base, 4 s cap, system clock). */
export interface NetworkCheckRetry {
  readonly attempts?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** The run clock the waits are measured on. */
  readonly clock?: Clock;
  readonly random?: () => number;
}

/** JSON-RPC "internal error": answered by busy nodes and load balancers, and gone on the next try. */
const RPC_INTERNAL_ERROR = -32603;

/** True for a failure worth another attempt: a retryable coded error, or an RPC -32603. */
export function isTransientCheckFailure(e: unknown): boolean {
  if (!isChainpilotError(e)) return false;
  return e.retry === 'retryable' || (e.code === 'RPC_ERROR' && e.context['rpcCode'] === RPC_INTERNAL_ERROR);
}

/**
 * Resolves when the RPC is on `network`; throws RUNTIME_LIVE_NETWORK_MISMATCH when it is not (or
 * cannot say), RUNTIME_LIVE_NETWORK_UNREACHABLE when transient failures outlast the retries.
 */
export async function checkLiveNetwork(rpc: NetworkProbe, network: LiveNetwork, signal?: AbortSignal, retry: NetworkCheckRetry = {}): Promise<void> {
  const attempts = Math.max(1, Math.floor(retry.attempts ?? 5));
  const clock = retry.clock ?? systemClock();
  const jitter = seededRandom('live-network');
  const random = retry.random ?? (() => jitter.next());
  const ask = async (method: string): Promise<unknown> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await rpc.call(method, [], signal ? { signal } : {});
      } catch (e) {
        if (!isTransientCheckFailure(e) || signal?.aborted === true) {
          throw mismatch(
            `the RPC did not answer ${method} (${describeError(e)}), so network: ${network} cannot be verified; check endpoints.remote.rpcUrl and its key`,
            { method },
          );
        }
        if (attempt >= attempts) {
          throw new ChainpilotError(
            'RUNTIME_LIVE_NETWORK_UNREACHABLE',
            `live mode refused: the RPC failed ${method} ${attempts} times in a row (last: ${describeError(e)}), so network: ${network} cannot be verified; try again, or check endpoints.remote.rpcUrl`,
            { retry: 'retryable', context: { method, attempts }, cause: e },
          );
        }
        await clockSleep(clock, backoffWithJitter(attempt - 1, retry.baseDelayMs ?? 250, retry.maxDelayMs ?? 4_000, random), signal);
      }
    }
  };
  const version = await ask('getVersion');
  const core = typeof version === 'object' && version !== null ? (version as Record<string, unknown>)['solana-core'] : undefined;
  const isSim = typeof core === 'string' && core.endsWith(SIM_VERSION_SUFFIX);
  if (network === 'simulator') {
    if (!isSim)
      throw mismatch(
        `network: simulator but the RPC reports solana-core ${JSON.stringify(core)}, not the chainpilot simulator; set network to the RPC's cluster, or point the endpoints at a simulator`,
        { rpcVersion: typeof core === 'string' ? core : null },
      );
    return;
  }
  if (isSim)
    throw mismatch(`network: ${network} but the RPC is the chainpilot simulator (solana-core ${core}); set network: simulator to rehearse`, {
      rpcVersion: typeof core === 'string' ? core : null,
    });
  const genesis = await ask('getGenesisHash');
  if (genesis !== GENESIS_HASHES[network]) {
    const actual = Object.entries(GENESIS_HASHES).find(([, h]) => h === genesis)?.[0];
    throw mismatch(
      `network: ${network} but the RPC's genesis hash is ${String(genesis)}${actual ? ` (${actual})` : ' (an unknown cluster)'}; set network to the RPC's cluster or fix endpoints.remote.rpcUrl`,
      { genesis: typeof genesis === 'string' ? genesis : null },
    );
  }
}

function mismatch(message: string, context: Record<string, string | number | boolean | null | undefined>): ChainpilotError {
  return new ChainpilotError('RUNTIME_LIVE_NETWORK_MISMATCH', `live mode refused: ${message}`, { retry: 'not_retryable', context });
}
