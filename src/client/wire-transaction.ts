/**
 * Reads a Solana wire transaction (legacy or v0) straight from its bytes: signature slots, header,
 * account keys, blockhash, instructions and address-table lookups, each a view of the bytes (no
 * copies, no web3.js objects, no base58). Every length is checked and the message must end exactly
 * where the bytes end, so bytes that parse here are bytes a node would decode the same way. A
 * malformed transaction is an answer (`ok: false` with the reason), not an exception: the swap
 * client, inspection and the signer each name it with their own error code.
 */

/** One compiled instruction. */
export interface WireInstruction {
  /** Index of the program among the message's keys (static keys, then loaded writable, then loaded read-only). */
  readonly programIndex: number;
  /** Indexes of the instruction's accounts, in the same numbering (a view of the bytes). */
  readonly accountIndexes: Uint8Array;
  /** Instruction data (a view of the bytes). */
  readonly data: Uint8Array;
}

/** One address-table lookup of a v0 message. */
export interface WireLookup {
  /** The lookup table's address (32 bytes, a view). */
  readonly table: Uint8Array;
  readonly writableIndexes: Uint8Array;
  readonly readonlyIndexes: Uint8Array;
}

export interface WireTransaction {
  readonly version: 'legacy' | 0;
  /** Number of 64-byte signature slots. */
  readonly signatureCount: number;
  /** Offset of the first signature slot. */
  readonly signaturesOffset: number;
  /** Offset of the message: what the signatures cover. */
  readonly messageOffset: number;
  readonly requiredSignatures: number;
  readonly readonlySigned: number;
  readonly readonlyUnsigned: number;
  /** The static account keys (32-byte views), fee payer first. */
  readonly staticKeys: readonly Uint8Array[];
  readonly recentBlockhash: Uint8Array;
  readonly instructions: readonly WireInstruction[];
  readonly lookups: readonly WireLookup[];
  /** Keys loaded from lookup tables: writable ones first, then read-only (their indexes follow the static keys). */
  readonly loadedWritableCount: number;
  readonly loadedReadonlyCount: number;
}

export type WireParse = { readonly ok: true; readonly tx: WireTransaction } | { readonly ok: false; readonly reason: string };

/** Internal: unwinds the parse to `parseWireTransaction`, which turns it into an answer; never escapes this module. */
class Malformed extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Parses `raw`; never throws for malformed bytes. */
export function parseWireTransaction(raw: Uint8Array): WireParse {
  try {
    return { ok: true, tx: parse(raw) };
  } catch (e) {
    if (e instanceof Malformed) return { ok: false, reason: e.reason };
    throw e;
  }
}

function parse(raw: Uint8Array): WireTransaction {
  let at = 0;
  const need = (n: number, what: string): void => {
    if (at + n > raw.length) throw new Malformed(`${what} runs past the end of the ${raw.length} bytes`);
  };
  const u8 = (what: string): number => {
    need(1, what);
    return raw[at++]!;
  };
  const shortVec = (what: string): number => {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const b = u8(what);
      value |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) return value;
    }
    throw new Malformed(`${what}: compact length longer than 3 bytes`);
  };
  const take = (n: number, what: string): Uint8Array => {
    need(n, what);
    const out = raw.subarray(at, at + n);
    at += n;
    return out;
  };

  const signatureCount = shortVec('signature count');
  const signaturesOffset = at;
  need(64 * signatureCount, 'signatures');
  at += 64 * signatureCount;
  const messageOffset = at;
  const prefix = u8('message header');
  let version: 'legacy' | 0 = 'legacy';
  let requiredSignatures = prefix;
  if ((prefix & 0x80) !== 0) {
    if ((prefix & 0x7f) !== 0) throw new Malformed(`message version ${prefix & 0x7f} is not supported`);
    version = 0;
    requiredSignatures = u8('message header');
  }
  const readonlySigned = u8('message header');
  const readonlyUnsigned = u8('message header');
  const keyCount = shortVec('account key count');
  const staticKeys: Uint8Array[] = [];
  for (let i = 0; i < keyCount; i++) staticKeys.push(take(32, `account key ${i}`));
  if (requiredSignatures + readonlyUnsigned > keyCount || readonlySigned > requiredSignatures) {
    throw new Malformed(`the header counts ${requiredSignatures} signers and ${readonlyUnsigned} read-only unsigned keys among ${keyCount} keys`);
  }
  const recentBlockhash = take(32, 'recent blockhash');
  const ixCount = shortVec('instruction count');
  const instructions: WireInstruction[] = [];
  for (let i = 0; i < ixCount; i++) {
    const programIndex = u8(`instruction ${i} program`);
    const accountIndexes = take(shortVec(`instruction ${i} accounts`), `instruction ${i} accounts`);
    const data = take(shortVec(`instruction ${i} data`), `instruction ${i} data`);
    instructions.push({ programIndex, accountIndexes, data });
  }
  const lookups: WireLookup[] = [];
  let loadedWritableCount = 0;
  let loadedReadonlyCount = 0;
  if (version === 0) {
    const lookupCount = shortVec('address table lookup count');
    for (let i = 0; i < lookupCount; i++) {
      const table = take(32, `lookup ${i} table`);
      const writableIndexes = take(shortVec(`lookup ${i} writable indexes`), `lookup ${i} writable indexes`);
      const readonlyIndexes = take(shortVec(`lookup ${i} read-only indexes`), `lookup ${i} read-only indexes`);
      loadedWritableCount += writableIndexes.length;
      loadedReadonlyCount += readonlyIndexes.length;
      lookups.push({ table, writableIndexes, readonlyIndexes });
    }
  }
  if (at !== raw.length) throw new Malformed(`${raw.length - at} bytes follow the end of the message`);
  const total = keyCount + loadedWritableCount + loadedReadonlyCount;
  for (const [i, ix] of instructions.entries()) {
    if (ix.programIndex >= total) throw new Malformed(`instruction ${i} calls key index ${ix.programIndex} of ${total}`);
    for (const a of ix.accountIndexes) if (a >= total) throw new Malformed(`instruction ${i} names key index ${a} of ${total}`);
  }
  return {
    version,
    signatureCount,
    signaturesOffset,
    messageOffset,
    requiredSignatures,
    readonlySigned,
    readonlyUnsigned,
    staticKeys,
    recentBlockhash,
    instructions,
    lookups,
    loadedWritableCount,
    loadedReadonlyCount,
  };
}

/**
 * Whether the account at `index` (static keys, then loaded writable, then loaded read-only) is
 * writable by the message's header, as the runtime reads it before any demotion.
 */
export function isWritableIndex(tx: WireTransaction, index: number): boolean {
  const keyCount = tx.staticKeys.length;
  if (index < tx.requiredSignatures) return index < tx.requiredSignatures - tx.readonlySigned;
  if (index < keyCount) return index - tx.requiredSignatures < keyCount - tx.requiredSignatures - tx.readonlyUnsigned;
  return index - keyCount < tx.loadedWritableCount;
}
