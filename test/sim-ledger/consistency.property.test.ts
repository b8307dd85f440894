import { Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '../../src/client/spl-token.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manualClock, seededRandom } from '../../src/core/index.js';
import { createLedger, WRAPPED_SOL_MINT } from '../../src/sim/ledger/index.js';
import { createSwapBuilder } from '../../src/sim/swap/swap-builder.js';
import { parseSwapRequest } from '../../src/sim/swap/swap-request.js';
import { readTokenAccount } from '../../src/sim/ledger/spl-accounts.js';
import { fakeMarket } from './fake-market.js';

type Op =
  | { kind: 'buy'; lamports: number; slippagePct: number; racedBy: number }
  | { kind: 'sellShare'; share: number; slippagePct: number; racedBy: number }
  | { kind: 'otherTrader'; lamports: number }
  | { kind: 'slot' };

/** Lamports another trader buys between the swap's build and its landing (0 = nobody). */
const raced = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000_000_000 }));

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('buy' as const),
    lamports: fc.integer({ min: 1_000, max: 2_000_000_000 }),
    slippagePct: fc.constantFrom(0, 0.5, 5),
    racedBy: raced,
  }),
  fc.record({ kind: fc.constant('sellShare' as const), share: fc.integer({ min: 1, max: 100 }), slippagePct: fc.constantFrom(0, 0.5, 5), racedBy: raced }),
  fc.record({ kind: fc.constant('otherTrader' as const), lamports: fc.integer({ min: 1, max: 500_000_000 }) }),
  fc.record({ kind: fc.constant('slot' as const) }),
);

let failuresSeen = 0;

describe('ledger and model consistency', () => {
  it('keeps wallet balances, pool reserves and the landed-swap tape in exact agreement over random swap sequences', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 12 }), (ops) => {
        const clock = manualClock(0);
        const market = fakeMarket('prop');
        const mint = market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6);
        const ledger = createLedger({ market, clock, random: seededRandom('prop') });
        const builder = createSwapBuilder({ market, ledger, random: seededRandom('prop-b') });
        const wallet = Keypair.fromSeed(new Uint8Array(32).fill(7));
        const funded = 100n * BigInt(LAMPORTS_PER_SOL);
        ledger.airdrop(wallet.publicKey.toBase58(), funded);
        const ata = getAssociatedTokenAddressSync(new PublicKey(mint), wallet.publicKey).toBase58();
        const tokens = () => {
          const a = ledger.account(ata);
          return a ? (readTokenAccount(a.owner, a.data)?.amountRaw ?? 0n) : 0n;
        };
        let feesPaid = 0n;
        let otherSol = 0n;
        let otherTokens = 0n;
        const start = market.pool(mint)!;
        const otherTrader = (lamports: bigint) => {
          const before = market.pool(mint)!;
          market.move(mint, 'buy', lamports);
          const after = market.pool(mint)!;
          otherSol += after.solReserveLamports - before.solReserveLamports;
          otherTokens += before.tokenReserveRaw - after.tokenReserveRaw;
        };
        let failures = 0;
        try {
          for (const o of ops) {
            if (o.kind === 'slot') {
              clock.advance(400);
              continue;
            }
            if (o.kind === 'otherTrader') {
              otherTrader(BigInt(o.lamports));
              continue;
            }
            const held = tokens();
            const sellRaw = o.kind === 'sellShare' ? (held * BigInt(o.share)) / 100n : 0n;
            if (o.kind === 'sellShare' && sellRaw === 0n) continue;
            const amount = o.kind === 'buy' ? (o.lamports / 1e9).toFixed(9) : (Number(sellRaw) / 1e6).toFixed(6);
            let built;
            try {
              built = builder.build(
                parseSwapRequest({
                  wallet: wallet.publicKey.toBase58(),
                  from: o.kind === 'buy' ? WRAPPED_SOL_MINT : mint,
                  to: o.kind === 'buy' ? mint : WRAPPED_SOL_MINT,
                  amount,
                  slippage: o.slippagePct,
                  priorityFee: 0,
                }),
              );
            } catch {
              continue; // too small to get any output
            }
            if (o.racedBy > 0) otherTrader(BigInt(o.racedBy));
            const tx = Transaction.from(Buffer.from(built.txn, 'base64'));
            tx.partialSign(wallet);
            const r = ledger.send(tx.serialize(), { skipPreflight: true });
            expect(r.ok).toBe(true);
            if (r.ok) {
              const st = ledger.signatureStatus(r.signature, true);
              if (st) feesPaid += 10_000n;
              if (st?.err) failures++;
              // A swap fails exactly when another trader moved the pool beyond its bound.
              if (st?.err) expect(o.racedBy).toBeGreaterThan(0);
            }
          }
          const landed = market.landed;
          const bought = landed.filter((s) => s.side === 'buy');
          const sold = landed.filter((s) => s.side === 'sell');
          const sum = (xs: typeof landed, f: (s: (typeof landed)[number]) => bigint) => xs.reduce((acc, s) => acc + f(s), 0n);
          // Wallet tokens = tokens bought - tokens sold, exactly.
          expect(tokens()).toBe(sum(bought, (s) => s.tokenRaw) - sum(sold, (s) => s.tokenRaw));
          // Wallet SOL = funded - SOL into the pool + SOL out of it - fees - the token account's rent.
          const rent = ledger.account(ata) ? ledger.rentExemptLamports(165) : 0n;
          expect(ledger.balance(wallet.publicKey.toBase58())).toBe(
            funded - sum(bought, (s) => s.solLamports) + sum(sold, (s) => s.solLamports) - feesPaid - rent,
          );
          // The model moved by exactly the landed swaps plus the other traders.
          const end = market.pool(mint)!;
          expect(end.solReserveLamports - start.solReserveLamports).toBe(sum(bought, (s) => s.solLamports) - sum(sold, (s) => s.solLamports) + otherSol);
          expect(start.tokenReserveRaw - end.tokenReserveRaw).toBe(sum(bought, (s) => s.tokenRaw) - sum(sold, (s) => s.tokenRaw) + otherTokens);
          failuresSeen += failures;
        } finally {
          ledger.stop();
        }
      }),
      { numRuns: 10, seed: 20261121 },
    );
    expect(failuresSeen).toBeGreaterThan(0); // the runs did exercise slippage failures
  });
});
