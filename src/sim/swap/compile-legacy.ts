/**
 * Compiles a legacy transaction message without web3.js's `compileMessage`, which sorts keys by
 * their base58 text and dominated the swap builder's profile. Same wire format: header, account
 * keys (writable signers, read-only signers, writable others, read-only others; fee payer first,
 * otherwise in order of first use), blockhash, compiled instructions.
 */
import type { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { base58Bytes } from '../../core/base58.js';

/**
 * Key bytes and their map id per PublicKey object: `toBuffer` goes through bn.js each call, and the
 * same objects (program ids, the pool's mint, vault and authority, cached associated addresses)
 * recur in every swap. Weak, so it holds nothing alive.
 */
const idOf = new WeakMap<PublicKey, { readonly bytes: Buffer; readonly id: string }>();
const keyId = (key: PublicKey): { readonly bytes: Buffer; readonly id: string } => {
  let k = idOf.get(key);
  if (!k) {
    const bytes = key.toBuffer();
    k = { bytes, id: bytes.toString('latin1') };
    idOf.set(key, k);
  }
  return k;
};

interface Meta {
  readonly key: PublicKey;
  readonly bytes: Buffer;
  signer: boolean;
  writable: boolean;
}

const shortVec = (n: number): number[] => {
  const out: number[] = [];
  let v = n;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if (v === 0) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};

/** The message bytes and its required signers in slot order. */
export function compileLegacyMessage(
  payer: PublicKey,
  blockhash: string,
  instructions: readonly TransactionInstruction[],
): { message: Buffer; signers: PublicKey[] } {
  const metas = new Map<string, Meta>();
  const order: Meta[] = [];
  const touch = (key: PublicKey, signer: boolean, writable: boolean): void => {
    const { bytes, id } = keyId(key);
    let m = metas.get(id);
    if (!m) {
      m = { key, bytes, signer, writable };
      metas.set(id, m);
      order.push(m);
    } else {
      m.signer ||= signer;
      m.writable ||= writable;
    }
  };
  touch(payer, true, true);
  for (const ix of instructions) {
    for (const k of ix.keys) touch(k.pubkey, k.isSigner, k.isWritable);
    touch(ix.programId, false, false);
  }
  const groups = [
    order.filter((m) => m.signer && m.writable),
    order.filter((m) => m.signer && !m.writable),
    order.filter((m) => !m.signer && m.writable),
    order.filter((m) => !m.signer && !m.writable),
  ];
  const keys = groups.flat();
  const index = new Map(keys.map((m, i) => [m.bytes.toString('latin1'), i]));
  const at = (k: PublicKey): number => index.get(keyId(k).id)!;
  const parts: (Buffer | Uint8Array | number[])[] = [
    [groups[0]!.length + groups[1]!.length, groups[1]!.length, groups[3]!.length],
    shortVec(keys.length),
    ...keys.map((m) => m.bytes),
    Buffer.from(base58Bytes(blockhash)),
    shortVec(instructions.length),
  ];
  for (const ix of instructions) {
    parts.push(
      [at(ix.programId)],
      shortVec(ix.keys.length),
      ix.keys.map((k) => at(k.pubkey)),
      shortVec(ix.data.length),
      ix.data,
    );
  }
  const message = Buffer.concat(parts.map((p) => (Array.isArray(p) ? Buffer.from(p) : p)));
  return { message, signers: keys.filter((m) => m.signer).map((m) => m.key) };
}
