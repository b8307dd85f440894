/**
 * A v0 transaction can load accounts from address lookup tables. Static mode reads no tables, so
 * a base-program instruction naming a table-loaded account (which could be one of ours) is refused;
 * simulate mode resolves the tables through RPC and judges the real addresses (issue 38). The
 * swap: a fixed transfer into our account, then as many tokens out of our Token-2022 account of
 * the mint, its address hidden in a table, on the signature of the pool authority (a permanent
 * delegate, say).
 */
import { AddressLookupTableAccount, Keypair, SystemProgram, TransactionMessage, VersionedTransaction, type PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferInstruction,
  TOKEN_2022_PROGRAM_ID,
  getAssociatedTokenAddressSync,
} from '../../src/client/spl-token.js';
import { inspectedBuy } from '../helpers/intents.js';
import { BASE_ALLOWED_PROGRAMS, inspectSwap, type InspectionMode } from '../../src/executors/live/inspect.js';
import type { LiveRpcPort, RpcAccount } from '../../src/executors/live/ports.js';

const key = (n: number): Keypair => Keypair.fromSeed(new Uint8Array(32).fill(n));
const wallet = key(1).publicKey;
const authority = key(2);
const mint = key(3).publicKey;
const table = key(4).publicKey;
const attacker = key(5).publicKey;
const OUT = 990_000n;
const ours = getAssociatedTokenAddressSync(mint, wallet, true);
const vault = getAssociatedTokenAddressSync(mint, authority.publicKey, true);
const theirs = getAssociatedTokenAddressSync(mint, attacker, true);
const ours2022 = getAssociatedTokenAddressSync(mint, wallet, true, TOKEN_2022_PROGRAM_ID);

/** A table holding `addresses` as the lookup-table program stores it (56-byte header, then the keys). */
function tableAccount(addresses: PublicKey[]): RpcAccount {
  const meta = Buffer.alloc(56);
  meta.writeUInt32LE(1, 0);
  meta.writeBigUInt64LE(2n ** 64n - 1n, 4); // never deactivated
  const data = Buffer.concat([meta, ...addresses.map((a) => a.toBuffer())]);
  return { lamports: 1_000_000n, owner: 'AddressLookupTab1e1111111111111111111111111', data: [data.toString('base64'), 'base64'], executable: false };
}

/** A clean classic mint (no freeze authority). */
function mintAccount(): RpcAccount {
  const d = Buffer.alloc(82);
  d[44] = 6;
  d[45] = 1;
  return { lamports: 1_461_600n, owner: TOKEN_PROGRAM_ID.toBase58(), data: [d.toString('base64'), 'base64'], executable: false };
}

function built() {
  const instructions = [
    createAssociatedTokenAccountIdempotentInstruction(wallet, ours, wallet, mint),
    SystemProgram.transfer({ fromPubkey: wallet, toPubkey: authority.publicKey, lamports: 1_000_000n }),
    createTransferInstruction(vault, ours, authority.publicKey, OUT),
    // Out of our Token-2022 account of the mint, whose address only the table holds.
    createTransferInstruction(ours2022, theirs, authority.publicKey, OUT, TOKEN_2022_PROGRAM_ID),
  ];
  const lookup = new AddressLookupTableAccount({
    key: table,
    state: AddressLookupTableAccount.deserialize(Buffer.from(tableAccount([ours2022, theirs]).data[0], 'base64')),
  });
  const message = new TransactionMessage({ payerKey: wallet, recentBlockhash: key(9).publicKey.toBase58(), instructions }).compileToV0Message([lookup]);
  const tx = new VersionedTransaction(message);
  tx.sign([authority]);
  const raw = tx.serialize();
  return { transaction: tx, raw, base64: Buffer.from(raw).toString('base64') };
}

const intent = inspectedBuy(mint.toBase58());

const rpc: Pick<LiveRpcPort, 'simulateTransaction' | 'getMultipleAccounts'> = {
  getMultipleAccounts: async (addresses) => ({
    context: { slot: 7 },
    value: addresses.map((a) => (a === table.toBase58() ? tableAccount([ours2022, theirs]) : a === mint.toBase58() ? mintAccount() : null)),
  }),
  simulateTransaction: () => Promise.reject(new Error('the instruction checks must refuse before simulating')),
};

describe.each<[InspectionMode, RegExp]>([
  [
    'static',
    /^instruction #\d+ \(Token-2022 Transfer\) names an account loaded from an address lookup table \(lookup:\w+#\d+\), which static inspection does not resolve: use simulate mode$/,
  ],
  ['simulate', /^instruction #\d+ \(Token-2022 Transfer\) moves 990000 raw tokens out of our token account \w+ on the signature of \w+, not our wallet$/],
])('a v0 swap hiding our account in a lookup table, %s mode', (mode, reason) => {
  it('is refused before signing', async () => {
    const b = built();
    expect(b.transaction.message.addressTableLookups).toHaveLength(1); // the table is really used
    const r = await inspectSwap(b, intent, wallet, rpc, { allowedPrograms: new Set(BASE_ALLOWED_PROGRAMS), rentBudgetLamports: 2_039_280n, mode });
    expect(r).toMatchObject({ ok: false, code: 'LIVE_INSPECTION_INSTRUCTION' });
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});
