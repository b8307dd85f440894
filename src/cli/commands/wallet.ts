/**
 * `chainpilot wallet new --out FILE`: writes a fresh keypair file (JSON array of 64 bytes, the
 * solana-keygen format) with mode 0600, refusing to overwrite, and prints only the address.
 */
import { openSync, writeSync, closeSync, constants } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import type { Command } from 'commander';
import { ChainpilotError } from '../../core/errors.js';

/** Creates the keypair file exclusively (O_EXCL) with mode 0600; returns the wallet address. */
export function writeNewKeypairFile(path: string): string {
  const kp = Keypair.generate();
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      throw new ChainpilotError('EXEC_WALLET_FILE_EXISTS', `${path} already exists; choose another --out path (an existing wallet is never overwritten)`, {
        retry: 'not_retryable',
        context: { path },
      });
    }
    throw e;
  }
  try {
    writeSync(fd, JSON.stringify(Array.from(kp.secretKey)));
  } finally {
    closeSync(fd);
  }
  return kp.publicKey.toBase58();
}

/** Registers `wallet new` on the program. */
export function registerWalletCommand(program: Command): void {
  const wallet = program.command('wallet').description('manage the trading wallet keypair');
  wallet
    .command('new')
    .description('create a new keypair file (mode 0600) for live trading or a simulator rehearsal')
    .requiredOption('--out <file>', 'path of the keypair file to create')
    .action((opts: { out: string }) => {
      const address = writeNewKeypairFile(opts.out);
      process.stdout.write(`wallet ${address} written to ${opts.out} (mode 0600); fund this address before trading\n`);
    });
}
