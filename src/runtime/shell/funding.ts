/** `--fund ADDRESS=SOL` of `chainpilot sim`: kept apart from the simulator so the CLI parses it without loading it. */
import { LAMPORTS_PER_SOL } from '../../core/units.js';
import { ChainpilotError } from '../../core/errors.js';

/** A wallet to airdrop to when the simulator's ledger starts, in lamports. */
export interface FundingOrder {
  readonly address: string;
  readonly lamports: bigint;
}

/** Parses `ADDRESS=SOL` (e.g. `7xKX...=10`) into a funding order. Throws CLI_BAD_OPTION naming the fix. */
export function parseFunding(spec: string): { address: string; lamports: bigint } {
  const m = /^([1-9A-HJ-NP-Za-km-z]{32,44})=(\d+(?:\.\d{1,9})?)$/.exec(spec);
  if (!m) {
    throw new ChainpilotError('CLI_BAD_OPTION', `--fund ${spec}: use ADDRESS=SOL, e.g. 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU=10`, {
      retry: 'not_retryable',
      context: { option: '--fund' },
    });
  }
  const [whole, frac = ''] = m[2]!.split('.');
  return { address: m[1]!, lamports: BigInt(whole!) * LAMPORTS_PER_SOL + BigInt(frac.padEnd(9, '0')) };
}
