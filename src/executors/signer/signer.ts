/**
 * The wallet signer. The secret key lives only in this closure: it is never a property, never
 * serialised, never part of an error message, and strategies never see the signer at all.
 */
import { createPrivateKey, sign as ed25519Sign } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { Keypair, type PublicKey, type Transaction, VersionedTransaction } from '@solana/web3.js';
import { base58Bytes, base58Text } from '../../core/base58.js';
import { ChainpilotError } from '../../core/errors.js';
import { signerIndex, wireLayout } from './wire-transaction.js';

/** A signed transaction: its first signature (the transaction id) and its exact wire bytes. */
export interface SignedTransaction {
  readonly signature: string;
  readonly raw: Uint8Array;
  readonly base64: string;
}

export interface Signer {
  /** The wallet address (base58). */
  readonly address: string;
  readonly publicKey: PublicKey;
  /** Signs a transaction whose fee payer is this wallet; returns the signature and signed bytes. */
  sign(tx: VersionedTransaction | Transaction): SignedTransaction;
  /**
   * Signs wire bytes (legacy or v0) as they came from the swap service: node:crypto ed25519 over
   * the exact message bytes, written into this wallet's signature slot of a copy (the input is not
   * modified). Nothing is re-serialised, so the signed message is byte for byte the one inspection
   * decoded. Other signers' slots are left as they are (a wrong co-signature makes the cluster
   * drop the transaction, which then expires; it cannot move funds). Throws EXEC_SIGNER_FAILED when
   * the bytes are not a transaction or this wallet is not one of its required signers.
   */
  signWire(raw: Uint8Array): SignedTransaction;
}

/** DER prefix of a PKCS#8 ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A signer over an in-memory keypair. The keypair is captured, never exposed. */
export function keypairSigner(keypair: Keypair): Signer {
  const publicKey = keypair.publicKey;
  const address = publicKey.toBase58();
  const publicBytes = publicKey.toBytes();
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, keypair.secretKey.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
  const signer: Signer = {
    address,
    publicKey,
    sign(tx) {
      let raw: Uint8Array;
      let sig: Uint8Array | null | undefined;
      if (tx instanceof VersionedTransaction) {
        tx.sign([keypair]);
        raw = tx.serialize();
        sig = tx.signatures[0];
      } else {
        tx.partialSign(keypair);
        raw = tx.serialize({ requireAllSignatures: true, verifySignatures: true });
        sig = tx.signature;
      }
      if (!sig) {
        throw new ChainpilotError('EXEC_SIGNER_FAILED', 'signing produced no signature: the transaction has no signer slot for this wallet', {
          retry: 'not_retryable',
          context: { wallet: address },
        });
      }
      return { signature: base58Text(sig), raw, base64: Buffer.from(raw).toString('base64') };
    },
    signWire(wire) {
      const layout = wireLayout(wire);
      const slot = signerIndex(wire, layout, publicBytes);
      if (slot < 0) {
        throw new ChainpilotError('EXEC_SIGNER_FAILED', 'signing produced no signature: the transaction has no signer slot for this wallet', {
          retry: 'not_retryable',
          context: { wallet: address },
        });
      }
      // Sign the caller's message bytes where they are (the copy below holds the same bytes), then
      // copy once into a Buffer from node's shared pool (no ArrayBuffer of its own for a wire
      // transaction's 1,232 bytes or less) and write the signature into this wallet's slot. The id
      // and the base64 text are read by the journal right after, so both are made here, the text
      // straight from the Buffer (no wrapper, no second copy).
      const signature = ed25519Sign(null, wire.subarray(layout.messageOffset), privateKey);
      const raw = Buffer.allocUnsafe(wire.length);
      raw.set(wire);
      raw.set(signature, layout.signaturesOffset + 64 * slot);
      return { raw, signature: base58Text(signature), base64: raw.toString('base64') };
    },
  };
  // Nothing secret to show when logged or inspected.
  Object.defineProperty(signer, 'toJSON', { value: () => ({ address }), enumerable: false });
  return Object.freeze(signer);
}

/**
 * Parses key material: a JSON array of 64 bytes (the solana-keygen file format) or a base58
 * string of the 64-byte secret key. Errors never echo the material.
 */
export function parseSecretKey(text: string, source: string): Keypair {
  const trimmed = text.trim();
  let bytes: Uint8Array | undefined;
  try {
    if (trimmed.startsWith('[')) {
      const arr = JSON.parse(trimmed) as unknown;
      if (Array.isArray(arr) && arr.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255)) {
        bytes = Uint8Array.from(arr as number[]);
      }
    } else if (trimmed.length > 0) {
      bytes = Uint8Array.from(base58Bytes(trimmed));
    }
  } catch {
    bytes = undefined;
  }
  if (!bytes || bytes.length !== 64) {
    throw new ChainpilotError(
      'EXEC_SIGNER_KEY_INVALID',
      `${source} does not hold a 64-byte secret key; use a file written by \`chainpilot wallet new\` (a JSON array of 64 numbers) or a base58 secret key`,
      { retry: 'not_retryable', context: { source } },
    );
  }
  try {
    return Keypair.fromSecretKey(bytes);
  } catch {
    throw new ChainpilotError('EXEC_SIGNER_KEY_INVALID', `${source} holds 64 bytes that are not a valid ed25519 keypair`, {
      retry: 'not_retryable',
      context: { source },
    });
  }
}

/**
 * Refuses a keypair file that group or others may read or write (as ssh refuses such a key): the
 * key spends the wallet. POSIX only; Windows has no such mode bits.
 */
export function assertPrivateKeyFile(path: string, platform: NodeJS.Platform = process.platform): void {
  if (platform === 'win32') return;
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return; // unreadable: the read below reports it with the fix
  }
  if ((mode & 0o077) !== 0) {
    const octal = `0${mode.toString(8).padStart(3, '0')}`;
    throw new ChainpilotError(
      'EXEC_WALLET_FILE_PERMISSIONS',
      `the wallet keypair file ${path} has mode ${octal}: group or others may read or write it; run \`chmod 600 ${path}\` (and keep it only where you trust every user)`,
      {
        retry: 'not_retryable',
        context: { path, mode: octal },
      },
    );
  }
}

/** A signer from a keypair file (JSON array of 64 bytes) that only its owner may read and write. */
export function signerFromKeypairFile(path: string): Signer {
  assertPrivateKeyFile(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ChainpilotError(
      'EXEC_SIGNER_KEY_MISSING',
      `cannot read the wallet keypair file ${path}; create one with \`chainpilot wallet new --out ${path}\``,
      {
        retry: 'not_retryable',
        context: { path, errno: (e as NodeJS.ErrnoException).code },
      },
    );
  }
  return keypairSigner(parseSecretKey(text, `keypair file ${path}`));
}

/** A signer from an environment variable holding the key (JSON array or base58). */
export function signerFromEnv(variable: string, env: NodeJS.ProcessEnv = process.env): Signer {
  const value = env[variable];
  if (value === undefined || value.trim() === '') {
    throw new ChainpilotError('EXEC_SIGNER_KEY_MISSING', `environment variable ${variable} is not set; put the wallet secret key in it or use a keypair file`, {
      retry: 'not_retryable',
      context: { variable },
    });
  }
  return keypairSigner(parseSecretKey(value, `environment variable ${variable}`));
}
