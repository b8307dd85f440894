/**
 * The network check of live mode: the deployment's `network` is compared with what the RPC says
 * it is, before the journal is opened or anything is signed.
 *
 * - `simulator`: `getVersion` must report a `solana-core` ending in `-chainpilot-sim` (the embedded
 *   simulator answers `2.2.0-chainpilot-sim`).
 * - `mainnet-beta`, `devnet`, `testnet`: `getVersion` must not be the simulator's, and
 *   `getGenesisHash` must equal that cluster's genesis hash (the one value that names a cluster;
 *   versions and URLs do not). An RPC that cannot answer is a refusal, never a pass.
 */
import { ChainpilotError, describeError } from '../core/index.js';

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

/** Resolves when the RPC is on `network`; throws RUNTIME_LIVE_NETWORK_MISMATCH otherwise. */
export async function checkLiveNetwork(rpc: NetworkProbe, network: LiveNetwork, signal?: AbortSignal): Promise<void> {
  const ask = async (method: string): Promise<unknown> => {
    try {
      return await rpc.call(method, [], signal ? { signal } : {});
    } catch (e) {
      throw mismatch(
        `the RPC did not answer ${method} (${describeError(e)}), so network: ${network} cannot be verified; check endpoints.remote.rpcUrl and its key`,
        { method },
      );
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
