/**
 * Signing one swap transaction: the live signer (`signWire`: node:crypto ed25519 over the message
 * bytes, written into a copy of the wire bytes) against the bare node:crypto baseline on the same
 * message in the same run, and web3.js's partialSign + serialize (what the signer used before) for
 * reference. The transaction is a real simulator swap (wallet pays, pool authority co-signed).
 */
import { createPrivateKey, sign } from 'node:crypto';
import { Keypair, LAMPORTS_PER_SOL, Transaction } from '@solana/web3.js';
import { manualClock, seededRandom } from '../src/core/index.js';
import { keypairSigner } from '../src/executors/signer/signer.js';
import { wireLayout } from '../src/executors/signer/wire-transaction.js';
import { createLedger, WRAPPED_SOL_MINT } from '../src/sim/ledger/index.js';
import { createSwapBuilder } from '../src/sim/swap/swap-builder.js';
import { parseSwapRequest } from '../src/sim/swap/swap-request.js';
import { fakeMarket } from '../test/sim-ledger/fake-market.js';
import { opsPerSecond, type Bench } from './harness.js';

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
      const rounds = 3;
      let bare = 0;
      let native = 0;
      // Interleaved rounds, best of each: the machine is shared and noisy.
      for (let r = 0; r < rounds; r++) {
        bare = Math.max(
          bare,
          opsPerSecond(() => void sign(null, message, key), 600),
        );
        native = Math.max(
          native,
          opsPerSecond(() => void signer.signWire(raw), 600),
        );
      }
      const withIds = opsPerSecond(() => {
        const s = signer.signWire(raw);
        void s.signature;
        void s.base64;
      }, 600);
      const web3 = opsPerSecond(
        () => {
          const tx = Transaction.from(raw);
          tx.partialSign(wallet);
          tx.serialize({ requireAllSignatures: true, verifySignatures: true });
        },
        600,
        5,
      );
      return [
        { name: 'node:crypto ed25519 sign (baseline)', value: 1e6 / bare, unit: 'µs/signature' },
        { name: 'signer.signWire (native)', value: 1e6 / native, unit: 'µs/signature', ratio: bare / native, note: 'goal ≤ 1.2' },
        { name: 'same + base58 id + base64 text', value: 1e6 / withIds, unit: 'µs/signature', ratio: bare / withIds },
        { name: 'web3.js partialSign + serialize (before)', value: 1e6 / web3, unit: 'µs/signature', ratio: bare / web3 },
      ];
    } finally {
      ledger.stop();
    }
  },
};
export default bench;
