/**
 * The per-wallet lease: one writer per wallet across every worker. Taking the lease bumps the
 * wallet's epoch; every journal write carries the epoch and fails with JOURNAL_FENCED once another
 * worker took the lease over (after it expired on Redis's clock). The holder renews it in the
 * background; a renewal that finds the lease gone aborts `signal`, and the holder stops.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ChainpilotError, describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { evalScript, redisJournalKeys } from '../journal/redis-journal.js';
import { LEASE_ACQUIRE, LEASE_RELEASE, LEASE_RENEW } from '../journal/redis-scripts.js';

export interface WalletLease {
  readonly wallet: string;
  readonly epoch: number;
  /** True when this lease was taken from a holder that never released it (crash, stall). */
  readonly tookOver: boolean;
  /** Aborted when a renewal finds the lease taken over (reason: a JOURNAL_FENCED error). */
  readonly signal: AbortSignal;
  /** Throws JOURNAL_FENCED unless this lease is still the wallet's current one (checked on Redis). */
  assertHeld(): Promise<void>;
  /** Stops renewing and frees the lease if still held. */
  release(): Promise<void>;
}

export interface AcquireLeaseOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly wallet: string;
  /** Lease time-to-live; renewed every third of it. */
  readonly ttlMs: number;
  /** Who holds it (worker id), for logs; a random suffix makes every acquisition unique. */
  readonly holder: string;
  readonly log: Logger;
  /** Gives up waiting for a held lease when aborted. */
  readonly signal?: AbortSignal;
}

/**
 * Takes the lease of `wallet`, waiting while another holder's lease is alive. A lease left by a
 * crashed holder is taken over once it expires (counted in the lease hash's `takeovers` field).
 */
export async function acquireWalletLease(o: AcquireLeaseOptions): Promise<WalletLease> {
  const key = redisJournalKeys(o.prefix, o.wallet).lease;
  const owner = `${o.holder}:${randomBytes(6).toString('hex')}`;
  let got: { epoch: number; tookOver: boolean } | undefined;
  while (!got) {
    if (o.signal?.aborted) throw o.signal.reason;
    const r = (await evalScript(o.redis, LEASE_ACQUIRE, [key], [owner, String(o.ttlMs)])) as number[];
    if (r[0] === 1) got = { epoch: Number(r[1]), tookOver: r[2] === 1 };
    else await sleep(Math.min(Math.max(Number(r[1]), 10), 250));
  }
  const { epoch, tookOver } = got;
  if (tookOver) o.log.warn({ wallet: o.wallet, epoch }, 'took over the wallet lease from a holder that never released it');
  const lost = new AbortController();
  const fenced = (): ChainpilotError =>
    new ChainpilotError('JOURNAL_FENCED', `the lease of wallet ${o.wallet} (epoch ${epoch}) was taken over; this worker stops writing and sending for it`, {
      retry: 'fatal',
      context: { wallet: o.wallet, epoch },
    });
  let stopped = false;
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      renewing = (async () => {
        try {
          const ok = (await evalScript(o.redis, LEASE_RENEW, [key], [String(epoch), owner, String(o.ttlMs)])) as number;
          if (ok !== 1 && !stopped) lost.abort(fenced());
        } catch (e) {
          // Redis unreachable: the lease may expire; journal writes will tell (fenced or not).
          o.log.warn({ wallet: o.wallet, err: describeError(e) }, 'lease renewal failed');
        }
      })();
    },
    Math.max(Math.floor(o.ttlMs / 3), 10),
  );
  timer.unref();
  return {
    wallet: o.wallet,
    epoch,
    tookOver,
    signal: lost.signal,
    async assertHeld() {
      const v = await o.redis.hmget(key, 'epoch', 'owner');
      if (v[0] !== String(epoch) || v[1] !== owner) {
        const e = fenced();
        if (!lost.signal.aborted) lost.abort(e);
        throw e;
      }
    },
    async release() {
      stopped = true;
      clearInterval(timer);
      await renewing;
      await evalScript(o.redis, LEASE_RELEASE, [key], [String(epoch), owner]);
    },
  };
}

/** Lease state of a wallet for metrics: current epoch and take-overs so far. */
export async function readLeaseStats(
  redis: Redis,
  prefix: string,
  wallet: string,
): Promise<{ readonly epoch: number; readonly takeovers: number; readonly held: boolean }> {
  const v = await redis.hmget(redisJournalKeys(prefix, wallet).lease, 'epoch', 'takeovers', 'owner');
  return { epoch: Number(v[0] ?? '0'), takeovers: Number(v[1] ?? '0'), held: (v[2] ?? '') !== '' };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
