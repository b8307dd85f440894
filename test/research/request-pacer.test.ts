/** The download's pacing: spacing at the rate, slower after every 429, retries after Retry-After, and a resumable stop. */
import { describe, expect, it } from 'vitest';
import { ChainpilotError } from '../../src/core/index.js';
import { createRequestPacer } from '../../src/research/download/request-pacer.js';

/** A manual clock: sleeping advances it, so every wait is recorded and nothing waits for real. */
function fakeTime(): { now: () => number; sleep: (ms: number) => Promise<void>; waits: number[] } {
  let t = 0;
  const waits: number[] = [];
  return {
    now: () => t,
    sleep: (ms) => {
      waits.push(ms);
      t += ms;
      return Promise.resolve();
    },
    waits,
  };
}

const limited = (retryAfterMs?: number): ChainpilotError =>
  new ChainpilotError('HTTP_RATE_LIMITED', 'HTTP 429', { retry: 'retryable', context: retryAfterMs === undefined ? {} : { retryAfterMs } });

describe('the request pacer of a download', () => {
  it('spaces requests at the rate and doubles the spacing on every 429, down to an eighth of the rate', async () => {
    const time = fakeTime();
    const pacer = createRequestPacer({ perSec: 10, now: time.now, sleep: time.sleep });
    for (let i = 0; i < 3; i++) await pacer.run('a page', () => Promise.resolve(i));
    expect(time.waits).toEqual([100, 100]);
    for (let i = 0; i < 5; i++) pacer.rateLimited();
    expect(pacer.stats()).toMatchObject({ requests: 3, rateLimited: 5, intervalMs: 800 });
    await pacer.run('a page', () => Promise.resolve(0));
    await pacer.run('a page', () => Promise.resolve(0));
    expect(time.waits.slice(2)).toEqual([100, 800]);
  });

  it("tries a call again after its Retry-After (else a doubling backoff) when it still fails after the client's retries", async () => {
    const time = fakeTime();
    const pacer = createRequestPacer({ perSec: 1000, now: time.now, sleep: time.sleep, backoffMs: 2000 });
    const errors = [limited(1500), limited()];
    const r = await pacer.run('a page', () => {
      const e = errors.shift();
      return e ? Promise.reject(e) : Promise.resolve('ok');
    });
    expect(r).toBe('ok');
    expect(time.waits.filter((w) => w >= 1000)).toEqual([1500, 4000]);
    expect(pacer.stats().waits).toBe(2);
  });

  it('stops resumably after its attempts, and lets an error that no retry can fix through unchanged', async () => {
    const time = fakeTime();
    const pacer = createRequestPacer({ perSec: 1000, now: time.now, sleep: time.sleep, attempts: 3 });
    await expect(pacer.run('page 2 of the history of X', () => Promise.reject(limited(10)))).rejects.toMatchObject({
      code: 'RECORDING_DOWNLOAD_INTERRUPTED',
      message: expect.stringContaining('page 2 of the history of X'),
    });
    expect(pacer.stats().requests).toBe(3);
    const bad = new ChainpilotError('HTTP_AUTH_FAILED', 'HTTP 401', { retry: 'not_retryable' });
    await expect(pacer.run('a page', () => Promise.reject(bad))).rejects.toBe(bad);
  });
});
