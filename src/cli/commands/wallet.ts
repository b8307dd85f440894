/**
 * `chainpilot wallet new --out FILE`: writes a fresh keypair file (JSON array of 64 bytes, the
 * solana-keygen format) with mode 0600, refusing to overwrite, and prints only the address.
 */
import type { Command } from 'commander';

/** Registers `wallet new` on the program; the Solana SDK loads only when the command runs. */
export function registerWalletCommand(program: Command): void {
  const wallet = program.command('wallet').description('manage the trading wallet keypair');
  wallet
    .command('new')
    .description('create a new keypair file (mode 0600) for live trading or a simulator rehearsal')
    .requiredOption('--out <file>', 'path of the keypair file to create')
    .action(async (opts: { out: string }) => {
      const { writeNewKeypairFile } = await import('./wallet-file.js');
      const address = writeNewKeypairFile(opts.out);
      process.stdout.write(`wallet ${address} written to ${opts.out} (mode 0600); fund this address before trading\n`);
    });
}
