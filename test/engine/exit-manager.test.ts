import { describe, expect, it } from 'vitest';
import { lamports, manualClock, rawAmount, unixMs } from '../../src/core/index.js';
import { createExitManager, type ExitOrder } from '../../src/engine/exit-manager.js';
import type { Position } from '../../src/engine/portfolio.js';

const position = (tokenRaw: bigint, openedAt: number): Position => ({
  key: 's1:mintA',
  strategyId: 's1',
  mint: 'mintA',
  decimals: 6,
  tokenRaw: rawAmount(tokenRaw),
  costLamports: lamports(100_000_000n),
  boughtLamports: lamports(100_000_000n),
  boughtRaw: rawAmount(tokenRaw),
  realisedLamports: 0n,
  feesLamports: lamports(5_000n),
  openedAt: unixMs(openedAt),
  updatedAt: unixMs(openedAt),
  market: 'venue_a',
  pool: 'poolA',
});

describe('exit manager', () => {
  it('arms a time stop for a new position and fires it once when due', () => {
    const clock = manualClock(1_000);
    const fired: ExitOrder[] = [];
    const exits = createExitManager(
      clock,
      () => ({ timeStopMs: 60_000 }),
      (o) => fired.push(o),
    );
    exits.positionChanged(position(1_000_000n, 1_000));
    expect(clock.pending()).toBe(1);
    clock.advance(60_000);
    expect(fired.map((o) => o.mint)).toEqual(['mintA']);
  });

  it('arms nothing for a fill that lands after stop (the executor drains in-flight intents after the engine stopped)', () => {
    const clock = manualClock(1_000);
    const fired: ExitOrder[] = [];
    const exits = createExitManager(
      clock,
      () => ({ timeStopMs: 60_000 }),
      (o) => fired.push(o),
    );
    exits.stop();
    exits.positionChanged(position(1_000_000n, 1_000));
    expect(clock.pending()).toBe(0);
    expect(exits.size()).toBe(0);
    clock.advance(120_000);
    expect(fired).toEqual([]);
  });
});
