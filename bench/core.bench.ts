/** Core arithmetic: exact bigint amount math against float math (the floor a float would give). */
import { applyBps, bps } from '../src/core/units.js';
import { fromRaw } from '../src/core/decimal.js';
import { opsPerSecond, type Bench } from './harness.js';

const bench: Bench = {
  name: 'core',
  async run() {
    let sink = 0;
    const floatOps = opsPerSecond(() => {
      sink += (1_234_567 * 25) / 10_000;
    });
    let big = 0n;
    const b = bps(25);
    const bigintOps = opsPerSecond(() => {
      big += applyBps(1_234_567n, b);
    });
    const fromRawOps = opsPerSecond(() => {
      fromRaw(123_456_789n, 6);
    }, 500);
    if (sink < 0 || big < 0n) throw new Error('unreachable');
    return [
      { name: 'float multiply (baseline)', value: floatOps, unit: 'ops/s' },
      { name: 'bigint applyBps', value: bigintOps, unit: 'ops/s', ratio: bigintOps / floatOps },
      { name: 'fromRaw (bignumber.js)', value: fromRawOps, unit: 'ops/s', ratio: fromRawOps / floatOps },
    ];
  },
};
export default bench;
