/**
 * Crash test against the fake chain, which lists every transaction it ever received: besides the
 * checks of support/crash-suite.ts it proves nothing was ever sent before it was journaled.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { seededRandom } from '../../src/core/random.js';
import type { SendFate } from '../executors/support/fake-chain.js';
import { serveChain } from '../executors/support/chain-bridge.js';
import { createFakeChain } from '../executors/support/fake-chain.js';
import { createFakeSwap } from '../executors/support/fake-swap.js';
import { bundleChild, cleanUp, crashAndCheck, INITIAL_LAMPORTS, type Backend } from '../executors/support/crash-suite.js';

beforeAll(bundleChild);
afterAll(cleanUp);

describe('crash recovery on the fake chain (child processes killed with SIGKILL)', () => {
  it('against the fake chain, which also proves nothing was sent before it was journaled (12 kills)', async () => {
    const clock = systemClock();
    const chain = createFakeChain({ clock, blockMs: 10, validityBlocks: 80 });
    const mintKey = chain.createMint(6);
    chain.addPool(mintKey, 30_000_000_000n, 1_000_000_000_000_000n);
    const random = seededRandom('crash-fake');
    chain.fates.push(
      ...Array.from({ length: 2000 }, (): SendFate => {
        const x = random.next();
        if (x < 0.6) return { kind: 'land', afterBlocks: random.int(1, 3) };
        if (x < 0.75) return { kind: 'drop' };
        if (x < 0.9) return { kind: 'timeout-then-land', afterBlocks: random.int(3, 60) };
        return { kind: 'fail' };
      }),
    );
    const served = await serveChain(
      chain,
      createFakeSwap(chain, () => 6),
    );
    const landedBy = new Map(chain.stats.landed.map((l) => [l.signature, l]));
    const backend: Backend = {
      env: { CHAIN_URL: served.url, VALIDITY_BLOCKS: '80' },
      mint: mintKey.toBase58(),
      fund: (w) => chain.airdrop(w, INITIAL_LAMPORTS),
      lamportsOf: (w) => chain.lamportsOf(w),
      tokensOf: (w) => chain.tokensOf(w, mintKey),
      landed: (sig) => {
        for (const l of chain.stats.landed) landedBy.set(l.signature, l);
        const l = landedBy.get(sig);
        return l ? { err: l.err } : undefined;
      },
      successfulSwaps: () => chain.stats.landed.filter((l) => l.err === null).map((l) => l.signature),
      received: () => chain.stats.received,
      close: async () => {
        served.server.close();
      },
    };
    try {
      await crashAndCheck('f', backend, 12, 3, seededRandom('crash-fake-kills'));
    } finally {
      await backend.close();
    }
  }, 300_000);
});
