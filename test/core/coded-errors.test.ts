/** Failures that used to be plain Errors now carry a code from the registry (docs/errors.md). */
import type { IncomingMessage } from 'node:http';
import { Keypair, MessageV0, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/random.js';
import { createPortfolio } from '../../src/engine/market/portfolio.js';
import { createPoolRegistry } from '../../src/client/http/pool-registry.js';
import { MAX_BODY_BYTES, readBody } from '../../src/sim/rpc/http-util.js';
import { parseTx } from '../../src/sim/ledger/parsed-tx.js';
import { pmState } from '../../src/sim/views/prediction-views.js';
import type { MarketState } from '../../src/sim/model/market-state.js';
import { netInForOut } from '../../src/sim/curve-math.js';

const code = (code: string): unknown => expect.objectContaining({ code });

describe('coded errors instead of plain ones', () => {
  it('rejects out-of-domain arguments of the random source with CORE_INVALID_ARGUMENT', () => {
    const r = seededRandom(1);
    expect(() => r.int(5, 1)).toThrow(code('CORE_INVALID_ARGUMENT'));
    expect(() => r.pick([])).toThrow(code('CORE_INVALID_ARGUMENT'));
  });

  it('rejects a negative starting cash of a portfolio with CORE_INVALID_ARGUMENT', () => {
    expect(() => createPortfolio(-1n)).toThrow(code('CORE_INVALID_ARGUMENT'));
  });

  it('refuses a pool after the HTTP pool registry closed with HTTP_POOL_CLOSED', async () => {
    const pools = createPoolRegistry();
    await pools.close();
    expect(() => pools.get('http://127.0.0.1:1')).toThrow(code('HTTP_POOL_CLOSED'));
  });

  it('refuses an oversized request body on the simulator servers with SIM_REQUEST_TOO_LARGE', async () => {
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.alloc(MAX_BODY_BYTES);
      yield Buffer.alloc(1);
    }
    await expect(readBody(body() as unknown as IncomingMessage)).rejects.toMatchObject({ code: 'SIM_REQUEST_TOO_LARGE' });
  });

  it('refuses a transaction naming a lookup table the ledger does not hold with LEDGER_UNSUPPORTED_TRANSACTION', () => {
    const payer = Keypair.generate();
    const message = new MessageV0({
      header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 0 },
      staticAccountKeys: [payer.publicKey],
      recentBlockhash: new PublicKey(new Uint8Array(32).fill(7)).toBase58(),
      compiledInstructions: [],
      addressTableLookups: [{ accountKey: Keypair.generate().publicKey, writableIndexes: [0], readonlyIndexes: [] }],
    });
    const tx = new VersionedTransaction(message);
    tx.sign([payer]);
    expect(() => parseTx(tx.serialize())).toThrow(code('LEDGER_UNSUPPORTED_TRANSACTION'));
    expect(() => parseTx(tx.serialize())).toThrow(/address lookup table \w+ does not exist on the ledger/);
  });

  it('refuses prediction views before the prediction model starts with SIM_PREDICTION_OFF', () => {
    expect(() => pmState({} as MarketState)).toThrow(code('SIM_PREDICTION_OFF'));
  });

  it('refuses a constant-product output at or above the reserve with CORE_INVALID_ARGUMENT', () => {
    expect(() => netInForOut(1_000n, 500n, 500n)).toThrow(code('CORE_INVALID_ARGUMENT'));
    expect(netInForOut(1_000n, 500n, 250n)).toBeGreaterThan(0n);
  });
});
