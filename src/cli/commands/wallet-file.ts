/**
 * The keypair file of `chainpilot wallet new`: a JSON array of 64 bytes (the solana-keygen format)
 * with mode 0600, never overwriting. Loaded by the command only when it runs.
 */
import { openSync, writeSync, closeSync, constants } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import { ChainpilotError } from '../../core/errors.js';
import { checkOutFileOption, pathFailure } from '../cli-paths.js';

/** Creates the keypair file exclusively (O_EXCL) with mode 0600; returns the wallet address. */
export function writeNewKeypairFile(path: string): string {
  checkOutFileOption('--out', path);
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
    throw pathFailure('--out', path, e);
  }
  try {
    writeSync(fd, JSON.stringify(Array.from(kp.secretKey)));
  } finally {
    closeSync(fd);
  }
  return kp.publicKey.toBase58();
}
