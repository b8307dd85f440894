/**
 * Signing one swap transaction as the live path does it: the live signer (`signWire`: node:crypto
 * ed25519 over the message bytes, written into a copy of the wire bytes, with the base58
 * signature id and the base64 text that the journal reads right after), against the bare
 * node:crypto sign of the same message, in alternating pairs in the same run. Breakdowns: the
 * base64 text of the wire alone, and the base58 id alone by our encoder, @solana/kit's (before)
 * and bs58 (web3.js's dependency); web3.js's partialSign + serialize (what the signer used before)
 * for reference. The transaction is a real simulator swap (wallet pays, pool authority co-signed).
 */
import { createPrivateKey, sign } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { Keypair, LAMPORTS_PER_SOL, Transaction } from '@solana/web3.js';
import baseX from 'base-x';
import { base58Text } from '../src/core/base58.js';
import { manualClock, seededRandom } from '../src/core/index.js';
import { keypairSigner } from '../src/executors/signer/signer.js';
import { wireLayout } from '../src/executors/signer/wire-transaction.js';
import { createLedger, WRAPPED_SOL_MINT } from '../src/sim/ledger/index.js';
import { createSwapBuilder } from '../src/sim/swap/swap-builder.js';
import { parseSwapRequest } from '../src/sim/swap/swap-request.js';
import { fakeMarket } from '../test/sim-ledger/fake-market.js';
import { alternatingPairs, cpuMicrosPerOp, loadNote, type Bench } from './harness.js';

const bench: Bench = {
  name: 'signer',
  async run() {
    const market = fakeMarket('bench-signer');
    const mint = market.launch(1_000n * BigInt(LAMPORTS_PER_SOL), 10n ** 18n, 6);
    const ledger = createLedger({ market, clock: manualClock(1_700_000_000_000), random: seededRandom('signer') });
    try {
      const wallet = Keypair.generate();
      const built = createSwapBuilder({ market, ledger, random: seededRandom('b') }).build(
        parseSwapRequest({ wallet: wallet.publicKey.toBase58(), from: WRAPPED_SOL_MINT, to: mint, amount: '0.01', slippage: 5, priorityFee: 0 }),
      );
      const raw = new Uint8Array(Buffer.from(built.txn, 'base64'));
      const message = raw.subarray(wireLayout(raw).messageOffset);
      const key = createPrivateKey({
        key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), wallet.secretKey.subarray(0, 32)]),
        format: 'der',
        type: 'pkcs8',
      });
      const signer = keypairSigner(wallet);
      const sig = new Uint8Array(sign(null, message, key));
      const kit = getBase58Decoder();
      // bs58 as web3.js uses it (bs58 4 is base-x 3 over the Bitcoin alphabet; base-x ships the types).
      const bs58 = baseX('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz');
      // CPU µs per operation: on a shared machine the wall clock counts the time other processes hold
      // the core; a single-threaded loop's CPU time does not (harness.cpuMicrosPerOp).
      const us = (fn: () => void, batch = 100): number => cpuMicrosPerOp(fn, 400, batch);
      const bareUs = (): number => us(() => void sign(null, message, key));
      // What the live path does: sign, then the journal reads the base58 id and the base64 text.
      const asJournalUs = (): number =>
        us(() => {
          const s = signer.signWire(raw);
          void s.signature;
          void s.base64;
        });
      const headline = await alternatingPairs(bareUs, asJournalUs, 6);
      const bare = headline.baseline;
      const rawBuffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      const base64 = await alternatingPairs(bareUs, () => us(() => void rawBuffer.toString('base64')), 4);
      const ours = await alternatingPairs(bareUs, () => us(() => void base58Text(sig)), 4);
      const kitId = await alternatingPairs(bareUs, () => us(() => void kit.decode(sig)), 4);
      const bs58Id = await alternatingPairs(bareUs, () => us(() => void bs58.encode(sig)), 4);
      const web3 = us(() => {
        const tx = Transaction.from(raw);
        tx.partialSign(wallet);
        tx.serialize({ requireAllSignatures: true, verifySignatures: true });
      }, 5);
      const load = loadNote();
      return [
        { name: 'node:crypto ed25519 sign (baseline)', value: bare, unit: 'CPU µs/signature', note: load },
        {
          name: 'signing as the journal needs it',
          value: headline.candidate,
          unit: 'CPU µs/signature',
          ratio: headline.ratio,
          note: `signWire + base58 id + base64 read; goal ≤ 1.2; median of 6 alternating pairs; ${load}`,
        },
        { name: 'breakdown: base64 text of the wire alone', value: base64.candidate, unit: 'CPU µs/signature', ratio: base64.ratio },
        { name: 'breakdown: base58 id, core/base58 (now)', value: ours.candidate, unit: 'CPU µs/signature', ratio: ours.ratio },
        { name: 'breakdown: base58 id, @solana/kit (before)', value: kitId.candidate, unit: 'CPU µs/signature', ratio: kitId.ratio },
        { name: 'breakdown: base58 id, bs58 (npm)', value: bs58Id.candidate, unit: 'CPU µs/signature', ratio: bs58Id.ratio },
        { name: 'web3.js partialSign + serialize (before)', value: web3, unit: 'CPU µs/signature', ratio: web3 / bare },
      ];
    } finally {
      ledger.stop();
    }
  },
};
export default bench;
