import { getBase58Encoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/index.js';
import { simAddress, simSignature } from '../../src/sim/sim-ids.js';

describe('simulator identifiers', () => {
  it('decode to exactly 32-byte addresses and 64-byte signatures', () => {
    const r = seededRandom(11);
    const enc = getBase58Encoder();
    for (let i = 0; i < 500; i++) {
      expect(enc.encode(simAddress(r)).length).toBe(32);
      expect(enc.encode(simSignature(r)).length).toBe(64);
    }
  });
});
