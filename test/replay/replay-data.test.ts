/**
 * ctx.data in a backtest: a look-up asked when the recorded run asked it waits for the line where
 * its answer arrived; any other look-up is a counted miss answered by the fallback, never by a
 * later answer and never by the network.
 */
import { describe, expect, it } from 'vitest';
import { manualClock, type UnixMs } from '../../src/core/index.js';
import { dataKey, type RecordLine } from '../../src/research/replay/recording-format.js';
import { createReplayData } from '../../src/research/replay/replay-data.js';

const line = (askedAt: number, t: number, path: string, body: unknown): Extract<RecordLine, { kind: 'data' }> => ({
  kind: 'data',
  t,
  askedAt,
  key: dataKey(path, undefined),
  path,
  body,
  error: undefined,
});

describe('replay data port', () => {
  it('answers a look-up asked at the recorded time when the replay reaches its answer line', async () => {
    const l = line(1_000, 1_040, '/tokens/A', { n: 1 });
    const clock = manualClock(1_000);
    const d = createReplayData([l], clock, 'error');
    let got: unknown;
    const p = d.port.get('/tokens/A', undefined).then((v) => (got = v));
    await Promise.resolve();
    expect(got).toBeUndefined();
    clock.advanceTo(1_040 as UnixMs);
    d.reached(l);
    await p;
    expect(got).toEqual({ n: 1 });
    expect(d.stats()).toEqual({ exact: 1, misses: 0, fallbackAnswers: 0 });
  });

  it('answers a miss with the newest earlier answer (latest) and never with a later one', async () => {
    const lines = [line(100, 150, '/tokens/A', { v: 'old' }), line(900, 950, '/tokens/A', { v: 'future' })];
    const clock = manualClock(500);
    const d = createReplayData(lines, clock, 'latest');
    await expect(d.port.get('/tokens/A', undefined)).resolves.toEqual({ v: 'old' });
    clock.advanceTo(120 as UnixMs); // no move backwards: still 500
    await expect(d.port.get('/tokens/B', undefined)).rejects.toMatchObject({ code: 'BACKTEST_DATA_MISS' });
    expect(d.stats()).toEqual({ exact: 0, misses: 2, fallbackAnswers: 1 });
  });

  it('fails a miss with BACKTEST_DATA_MISS under the error fallback', async () => {
    const d = createReplayData([line(100, 150, '/tokens/A', {})], manualClock(500), 'error');
    await expect(d.port.get('/tokens/A', undefined)).rejects.toMatchObject({ code: 'BACKTEST_DATA_MISS' });
  });
});
