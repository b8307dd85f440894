/**
 * Every required signature costs our wallet, the fee payer, a base fee: inspection (both modes)
 * allows at most `maxCoSigners` other signers, each of which must have signed already (issue 38,
 * case 3). (8 extra signers here: 10 do not fit a legacy transaction web3.js serialises with
 * this memo.) The hostile swap with 10 extra signers on a real ledger is in hostile-swap.test.ts.
 */
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { rawAmount, type Bps, type Lamports, type UnixMs } from '../../src/core/units.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { BASE_ALLOWED_PROGRAMS, inspectSwap, type InspectionMode } from '../../src/executors/live/inspect.js';
import type { LiveRpcPort } from '../../src/executors/live/ports.js';

const key = (n: number): Keypair => Keypair.fromSeed(new Uint8Array(32).fill(n));
const wallet = key(1).publicKey;
const venue = key(2);
const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/** A sell paid by `venue` (a co-signer), plus a memo `extra` keys must sign; `sign` says who has signed. */
function built(extra: Keypair[], sign: Keypair[]) {
  const memo = new TransactionInstruction({
    programId: new PublicKey(MEMO),
    keys: extra.map((k) => ({ pubkey: k.publicKey, isSigner: true, isWritable: false })),
    data: Buffer.from('gm'),
  });
  const tx = new Transaction({ feePayer: wallet, recentBlockhash: key(9).publicKey.toBase58() }).add(
    SystemProgram.transfer({ fromPubkey: venue.publicKey, toPubkey: wallet, lamports: 2_000_000n }),
    memo,
  );
  if (sign.length > 0) tx.partialSign(...sign);
  const raw = tx.serialize({ requireAllSignatures: false, verifySignatures: false });
  return { transaction: tx, raw, base64: raw.toString('base64') };
}

const sell: OrderIntent = {
  id: 's1',
  strategyId: 's',
  side: 'sell',
  mint: key(4).publicKey.toBase58(),
  decimals: 6,
  sellRaw: rawAmount(1_000_000n),
  slippageBps: 100 as Bps,
  priorityFeeLamports: 0n as Lamports,
  referencePrice: '0.001',
  createdAt: 0 as UnixMs,
  reason: 't',
};

const noRpc: Pick<LiveRpcPort, 'simulateTransaction' | 'getMultipleAccounts'> = {
  getMultipleAccounts: () => Promise.reject(new Error('no chain here')),
  simulateTransaction: () => Promise.reject(new Error('no chain here')),
};

describe.each<InspectionMode>(['static', 'simulate'])('signers and their fees, %s mode', (mode) => {
  const policy = (maxCoSigners?: number) => ({
    allowedPrograms: new Set([...BASE_ALLOWED_PROGRAMS, MEMO]),
    rentBudgetLamports: 2_039_280n,
    mode,
    ...(maxCoSigners === undefined ? {} : { maxCoSigners }),
  });

  it('refuses 8 extra required signers on a harmless memo, all of them signed, before reading the chain', async () => {
    const extra = Array.from({ length: 8 }, (_, i) => key(20 + i));
    const r = await inspectSwap(built(extra, [venue, ...extra]), sell, wallet, noRpc, policy());
    expect(r).toMatchObject({ ok: false, code: 'LIVE_INSPECTION_SIGNERS' });
    if (!r.ok) expect(r.reason).toMatch(/^the transaction requires 10 signatures, ours and 9 others \(\w+, \w+, \w+, …\); at most 1 co-signer\(s\)/);
  });

  it('refuses a co-signer that has not signed', async () => {
    const r = await inspectSwap(built([], []), sell, wallet, noRpc, policy());
    expect(r).toMatchObject({ ok: false, code: 'LIVE_INSPECTION_SIGNERS' });
    if (!r.ok) expect(r.reason).toBe(`required signer ${venue.publicKey.toBase58()} has not signed: a co-signer must sign before our wallet does`);
  });

  it('refuses any co-signer when the policy allows none', async () => {
    const r = await inspectSwap(built([], [venue]), sell, wallet, noRpc, policy(0));
    expect(r).toMatchObject({ ok: false, code: 'LIVE_INSPECTION_SIGNERS' });
  });
});
