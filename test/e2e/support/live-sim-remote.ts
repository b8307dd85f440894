/**
 * The shipped live rehearsal deployment (config/live-sim.yaml) pointed at a simulator the test
 * started: a remote endpoint whose API and RPC key come from `${K}`, with the wallet file and the
 * journal store in the test's own directory.
 */
import { readFileSync } from 'node:fs';
import type { RunningSimulator } from '../../../src/sim/start-simulator.js';

/** The `endpoints:` block of a remote endpoint on the simulator at `urls` (key from `${K}`). */
export function remoteEndpointLines(urls: RunningSimulator['urls']): string[] {
  return [
    'endpoints:',
    '  remote:',
    `    baseUrl: ${urls.base}`,
    `    datastreamUrl: ${urls.datastream}`,
    `    rpcUrl: ${urls['rpc']}`,
    `    swapUrl: ${urls['swap']}`,
    '    apiKey: ${K}',
    '    rpcApiKey: ${K}',
  ];
}

/** config/live-sim.yaml with its embedded simulator replaced by the one at `urls`, its wallet and store moved. */
export function liveSimOnRemote(urls: RunningSimulator['urls'], walletPath: string, store: string): string {
  const text = readFileSync('config/live-sim.yaml', 'utf8')
    .replace(/endpoints:\n {2}simulator:\n(?: {4}.*\n)+/, [...remoteEndpointLines(urls), ''].join('\n'))
    .replace('./wallet.json', walletPath)
    .replace('./data/live-sim.journal.sqlite', store);
  if (!text.includes('  remote:') || !text.includes(store))
    throw new Error('config/live-sim.yaml changed: its simulator endpoint or store path was not replaced');
  return text;
}
