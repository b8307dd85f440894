/**
 * One engine per wallet: the engine side's hold on a wallet's queue, report stream and journal.
 * A Redis key with a time-to-live, set only when absent, renewed by its holder every third of the
 * TTL and deleted on release (both compare the holder first). A second engine (another deployment,
 * or the same one started twice) finds the key and is refused at start with QUEUE_WALLET_HELD,
 * naming the holder; a crashed holder's key expires after the TTL.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ChainpilotError, describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';

/** Default time-to-live of an engine's hold (a crashed engine blocks its wallet at most this long). */
export const ENGINE_HOLD_TTL_MS = 15_000;

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 2 end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export interface EngineHold {
  /** `name@host:pid#random`: who holds the wallet. */
  readonly holder: string;
  /** Renewals that found the key held by someone else (the wallet was lost; logged as errors). */
  lostRenewals(): number;
  release(): Promise<void>;
}

/** Key of a wallet's engine hold (same hash tag as the wallet's journal). */
export function engineHoldKey(prefix: string, wallet: string): string {
  return `${prefix}:j:{${wallet}}:engine`;
}

/** Takes the engine hold of `wallet` or throws QUEUE_WALLET_HELD (not retryable) naming the current holder. */
export async function holdWalletForEngine(o: {
  readonly redis: Redis;
  readonly prefix: string;
  readonly wallet: string;
  /** The engine's name (deployment name or consumer). */
  readonly name: string;
  readonly log: Logger;
  readonly ttlMs?: number;
}): Promise<EngineHold> {
  const ttlMs = o.ttlMs ?? ENGINE_HOLD_TTL_MS;
  const key = engineHoldKey(o.prefix, o.wallet);
  const holder = `${o.name}@${process.pid}#${randomBytes(4).toString('hex')}`;
  const ok = await o.redis.set(key, holder, 'PX', ttlMs, 'NX');
  if (ok !== 'OK') {
    const current = await o.redis.get(key);
    throw new ChainpilotError(
      'QUEUE_WALLET_HELD',
      `wallet ${o.wallet} is already held by engine ${current ?? '(just released)'}: one engine per wallet; stop it first (a crashed engine's hold expires within ${ttlMs} ms)`,
      { retry: 'not_retryable', context: { wallet: o.wallet, holder: current ?? '' } },
    );
  }
  let lost = 0;
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      renewing = (async () => {
        try {
          const r = (await o.redis.eval(RENEW, 1, key, holder, String(ttlMs))) as number;
          if (r === 0) {
            lost++;
            o.log.error({ wallet: o.wallet, code: 'QUEUE_WALLET_HELD' }, 'another engine took this wallet while ours was unreachable; stop one of them');
          }
        } catch (e) {
          o.log.warn({ wallet: o.wallet, err: describeError(e) }, 'renewing the engine hold failed; retrying');
        }
      })();
    },
    Math.max(Math.floor(ttlMs / 3), 10),
  );
  timer.unref();
  return {
    holder,
    lostRenewals: () => lost,
    async release() {
      clearInterval(timer);
      await renewing;
      await o.redis.eval(RELEASE, 1, key, holder);
    },
  };
}
