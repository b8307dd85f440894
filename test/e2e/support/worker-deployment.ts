/**
 * The deployment file a `chainpilot worker` process reads in the scale-out e2e tests: one wallet on
 * the simulator's ledger (no feed: the engine side is the test), its queue on `redisUrl`.
 */
import { getBase58Decoder } from '@solana/kit';
import type { Keypair } from '@solana/web3.js';
import { SIM_ALLOWED_PROGRAMS, type SimChain } from '../../executors/support/sim-chain.js';

export function workerDeploymentYaml(o: {
  readonly name: string;
  readonly chain: SimChain;
  readonly key: Keypair;
  readonly redisUrl: string;
  readonly prefix: string;
  /** More `execution:` lines (indented two spaces), before the queue block. */
  readonly execution?: readonly string[];
  /** More `queue:` lines (indented four spaces). */
  readonly queue?: readonly string[];
  /** More `live:` lines (indented two spaces). */
  readonly live?: readonly string[];
  /** Top-level lines after the live block. */
  readonly tail?: readonly string[];
}): string {
  const { chain } = o;
  return [
    'version: 1',
    `name: ${o.name}`,
    'endpoints:',
    '  remote:',
    '    baseUrl: http://127.0.0.1:9',
    '    datastreamUrl: ws://127.0.0.1:9',
    `    apiKey: ${chain.apiKey}`,
    `    rpcUrl: ${chain.rpcUrl}`,
    `    swapUrl: ${chain.swapUrl}`,
    `    rpcApiKey: ${chain.apiKey}`,
    'wallet:',
    `  secretKey: ${getBase58Decoder().decode(o.key.secretKey)}`,
    'strategies:',
    '  - use: curve-momentum',
    'execution:',
    ...(o.execution ?? []),
    '  queue:',
    `    url: ${o.redisUrl}`,
    `    prefix: ${o.prefix}`,
    ...(o.queue ?? []),
    'live:',
    '  maxTradeSpendSol: "10"',
    '  maxDaySpendSol: "1000"',
    `  allowedPrograms: [${SIM_ALLOWED_PROGRAMS.join(', ')}]`,
    ...(o.live ?? []),
    ...(o.tail ?? []),
    '',
  ].join('\n');
}
