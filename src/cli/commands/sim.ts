/** `chainpilot sim`: runs the embedded market simulator until Ctrl-C. */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { parseFunding } from '../../runtime/shell/funding.js';
import { isChainpilotError } from '../../core/errors.js';
import { portOption, simSeedOption, speedOption } from '../options.js';

/** Where `sim` reads the key from when --api-key is absent (a key on the command line shows in `ps`). */
export const SIM_API_KEY_ENV = 'CHAINPILOT_SIM_API_KEY';

function collectFunding(v: string, acc: { address: string; lamports: bigint }[]): { address: string; lamports: bigint }[] {
  try {
    return [...acc, parseFunding(v)];
  } catch (e) {
    if (isChainpilotError(e)) throw new InvalidArgumentError(e.message);
    throw e;
  }
}

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description('serve a seeded synthetic market on localhost: token REST, prediction REST and the Datastream')
    .option('--port <port>', 'HTTP and WebSocket port (0 picks a free port)', portOption, 8787)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--seed <seed>', 'seed of the market and the faults (a number or a word)', simSeedOption, 1)
    .option('--speed <speed>', "multiple of real time, or 'max'", speedOption, 1)
    .option('--faults <profile>', 'fault profile: none, flaky or chaos', 'none')
    .addOption(
      new Option(
        '--api-key <key>',
        `key clients must present (default: generated and printed); prefer the ${SIM_API_KEY_ENV} environment variable, since a key on the command line shows in \`ps\``,
      )
        .env(SIM_API_KEY_ENV)
        .argParser((v: string) => {
          if (v.trim() === '' || /[\s/]/.test(v)) throw new InvalidArgumentError('expected a non-empty key without spaces or "/"');
          return v;
        }),
    )
    .option('--fund <address=sol>', 'airdrop SOL to a wallet on the ledger (repeatable)', collectFunding, [])
    .option('--no-ledger', 'serve REST and the Datastream only (no JSON-RPC, no swap service)')
    .action(
      async (o: {
        port: number;
        host: string;
        seed: number | string;
        speed: number | 'max';
        faults: string;
        apiKey?: string;
        fund: { address: string; lamports: bigint }[];
        ledger: boolean;
      }) => {
        const { runSimulator } = await import('../../runtime/shell/sim-runtime.js');
        const ac = new AbortController();
        const stop = (): void => ac.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        try {
          await runSimulator(
            {
              port: o.port,
              host: o.host,
              seed: o.seed,
              speed: o.speed,
              faults: o.faults,
              fund: o.fund,
              ...(o.apiKey ? { apiKey: o.apiKey } : {}),
              ...(o.ledger ? {} : { services: [] }),
            },
            (l) => process.stdout.write(`${l}\n`),
            ac.signal,
          );
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
        }
      },
    );
}
