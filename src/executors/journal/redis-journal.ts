/**
 * The Redis intent journal (scale-out, design.md §8): the same {@link IntentJournal} as the SQLite
 * one, for one wallet, in keys that share the hash tag `{wallet}`. Every state change is one Lua
 * script (redis-scripts.ts): a compare-and-set fenced by the wallet's lease epoch, so a worker whose
 * lease was taken over cannot write and gets JOURNAL_FENCED. A view opened without an epoch reads
 * only (the engine's side: restore and catch-up).
 *
 * Redis must be durable: {@link checkRedisDurability} refuses `appendonly no` and any eviction policy.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ChainpilotError } from '../../core/errors.js';
import { lamports } from '../../core/units.js';
import { decodeFill, decodeIntent, encodeFill, encodeIntent } from './codec.js';
import type { AttemptRecord, CreateResult, IntentJournal, IntentRecord, IntentState } from './journal.js';
import * as S from './redis-scripts.js';

export interface RedisJournalOptions {
  readonly redis: Redis;
  /** Key prefix shared by every chainpilot key on this Redis (default `chainpilot`). */
  readonly prefix?: string;
  /** Wallet address: one journal, one lease and one report stream per wallet. */
  readonly wallet: string;
  /** Lease epoch this writer holds (see wallet-lease.ts). Absent: a read-only view. */
  readonly epoch?: number;
  /** Approximate length the wallet's report stream is trimmed to (default 100 000). */
  readonly reportStreamMaxLen?: number;
  /** Close the Redis connection on `close()` (default false: the caller owns it). */
  readonly ownsConnection?: boolean;
}

/** The Redis journal: the journal interface plus the report-publishing variant of markReported. */
export interface RedisJournal extends IntentJournal {
  readonly wallet: string;
  readonly keys: RedisJournalKeys;
  /**
   * Marks the outcome reported and appends `report` (encoded, see report-codec.ts) to the wallet's
   * report stream in the same script, unless it was reported already: one report per outcome.
   */
  markReportedWith(id: string, at: number, report: string): Promise<void>;
}

export interface RedisJournalKeys {
  readonly lease: string;
  readonly open: string;
  readonly landed: string;
  readonly sigs: string;
  readonly spent: string;
  readonly reports: string;
  intent(id: string): string;
}

/** Key names of one wallet's journal, lease and report stream (one hash slot per wallet). */
export function redisJournalKeys(prefix: string, wallet: string): RedisJournalKeys {
  const base = `${prefix}:j:{${wallet}}`;
  return {
    lease: `${base}:lease`,
    open: `${base}:open`,
    landed: `${base}:landed`,
    sigs: `${base}:sigs`,
    spent: `${base}:spent`,
    reports: `${base}:reports`,
    intent: (id) => `${base}:i:${id}`,
  };
}

type ScriptName = 'create' | 'markBuilt' | 'recordSigned' | 'markSent' | 'resolve' | 'deny' | 'markReported';
const SCRIPTS: Readonly<Record<ScriptName, string>> = {
  create: S.CREATE,
  markBuilt: S.MARK_BUILT,
  recordSigned: S.RECORD_SIGNED,
  markSent: S.MARK_SENT,
  resolve: S.RESOLVE,
  deny: S.DENY,
  markReported: S.MARK_REPORTED,
};

/** Opens the journal of `wallet`. Call {@link checkRedisDurability} once per connection before writing. */
export function openRedisJournal(o: RedisJournalOptions): RedisJournal {
  const { redis, wallet } = o;
  const keys = redisJournalKeys(o.prefix ?? 'chainpilot', wallet);
  const epoch = o.epoch === undefined ? '' : String(o.epoch);
  const maxLen = String(o.reportStreamMaxLen ?? 100_000);

  const run = async (name: ScriptName, id: string, k: readonly string[], args: readonly string[]): Promise<unknown> => {
    if (epoch === '') {
      throw new ChainpilotError('JOURNAL_FENCED', `the journal of wallet ${wallet} was opened read-only (no lease epoch); ${name} needs a lease`, {
        retry: 'fatal',
        context: { wallet, intentId: id },
      });
    }
    try {
      return await evalScript(redis, SCRIPTS[name], k, [epoch, ...args]);
    } catch (e) {
      throw mapScriptError(e, wallet, id, o.epoch ?? 0);
    }
  };

  const toRecord = (h: Record<string, string>): IntentRecord => {
    const n = Number(h['n'] ?? '0');
    const attempts: AttemptRecord[] = [];
    for (let i = 0; i < n; i++) attempts.push(decodeAttempt(h[`a${i}`], h[`s${i}`], i));
    return {
      intent: decodeIntent(h['intent'] ?? ''),
      state: h['state'] as IntentState,
      done: h['done'] === '1',
      spendLamports: BigInt(h['spend'] ?? '0'),
      day: h['day'] ?? '',
      attempts,
      ...(h['code'] === undefined ? {} : { code: h['code'] }),
      ...(h['reason'] === undefined ? {} : { reason: h['reason'] }),
      ...(h['fill'] === undefined ? {} : { fill: decodeFill(h['fill']) }),
      ...(h['fee'] === undefined ? {} : { feeLamports: lamports(BigInt(h['fee'])) }),
      ...(h['slot'] === undefined ? {} : { landedSlot: Number(h['slot']) }),
      reported: h['reported'] === '1',
      updatedAt: Number(h['updated'] ?? '0'),
    };
  };

  const get = async (id: string): Promise<IntentRecord | undefined> => {
    const h = await redis.hgetall(keys.intent(id));
    return h['state'] === undefined ? undefined : toRecord(h);
  };

  const getMany = async (ids: readonly string[]): Promise<IntentRecord[]> => {
    if (ids.length === 0) return [];
    const pipe = redis.pipeline();
    for (const id of ids) pipe.hgetall(keys.intent(id));
    const res = (await pipe.exec()) ?? [];
    const out: IntentRecord[] = [];
    for (const [err, h] of res) {
      if (err) throw err;
      const hash = h as Record<string, string>;
      if (hash['state'] !== undefined) out.push(toRecord(hash));
    }
    return out;
  };

  return {
    wallet,
    keys,
    async create(intent, spend, at): Promise<CreateResult> {
      const r = (await run(
        'create',
        intent.id,
        [keys.lease, keys.intent(intent.id), keys.open, keys.spent],
        [intent.id, encodeIntent(intent), spend.spendLamports.toString(), spend.day, spend.dailyCapLamports?.toString() ?? '', String(at)],
      )) as string[];
      if (r[0] === 'over') return { kind: 'over_daily_cap', spentTodayLamports: BigInt(r[1] ?? '0') };
      const record = await get(intent.id);
      if (!record)
        throw new ChainpilotError('JOURNAL_NOT_FOUND', `intent ${intent.id} vanished right after create`, { retry: 'fatal', context: { intentId: intent.id } });
      return { kind: r[0] === 'exists' ? 'exists' : 'created', record };
    },
    get,
    async markBuilt(id, at) {
      await run('markBuilt', id, [keys.lease, keys.intent(id)], [id, String(at)]);
    },
    async recordSigned(id, a, at) {
      const attempt = JSON.stringify({
        signature: a.signature,
        txBase64: a.txBase64,
        blockhash: a.blockhash,
        expiryBlockHeight: a.expiryBlockHeight,
        slippageBps: a.slippageBps,
      });
      await run('recordSigned', id, [keys.lease, keys.intent(id), keys.sigs], [id, a.signature, attempt, String(at)]);
    },
    async markSent(id, signature, at) {
      await run('markSent', id, [keys.lease, keys.intent(id)], [id, signature, String(at)]);
    },
    async resolve(id, r, at) {
      const slot = r.state === 'EXPIRED' || r.landedSlot === undefined ? '' : String(r.landedSlot);
      const extra =
        r.state === 'LANDED'
          ? [encodeFill(r.fill), slot]
          : r.state === 'FAILED_ON_CHAIN'
            ? [r.code, r.reason, r.feeLamports.toString(), slot]
            : [r.final ? '1' : '0'];
      await run('resolve', id, [keys.lease, keys.intent(id), keys.landed], [id, r.signature, r.state, String(at), ...extra]);
    },
    async deny(id, code, reason, at) {
      await run('deny', id, [keys.lease, keys.intent(id), keys.spent], [id, code, reason, String(at)]);
    },
    async markReported(id, at) {
      await run('markReported', id, [keys.lease, keys.intent(id), keys.open, keys.reports], [id, String(at), '', maxLen]);
    },
    async markReportedWith(id, at, report) {
      await run('markReported', id, [keys.lease, keys.intent(id), keys.open, keys.reports], [id, String(at), report, maxLen]);
    },
    async unresolved() {
      return getMany(await redis.zrange(keys.open, 0, -1));
    },
    async landed() {
      return getMany(await redis.lrange(keys.landed, 0, -1));
    },
    async spentOn(day) {
      return BigInt((await redis.hget(keys.spent, day)) ?? '0');
    },
    async close() {
      if (o.ownsConnection) await redis.quit();
    },
  };
}

/**
 * Refuses a Redis that can lose or evict journal entries: `appendonly` must be on and
 * `maxmemory-policy` must be `noeviction`. Reads INFO (works where CONFIG is disabled).
 * Returns the `appendfsync` policy when CONFIG can tell (`always` loses nothing; `everysec` can lose
 * about the last second on a power loss or OS crash).
 */
export async function checkRedisDurability(redis: Redis): Promise<{ readonly appendfsync: string | undefined }> {
  const info = `${await redis.info('persistence')}\n${await redis.info('memory')}`;
  const field = (name: string): string | undefined => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
  const aof = field('aof_enabled');
  const policy = field('maxmemory_policy');
  const problems: string[] = [];
  if (aof !== '1') problems.push(`appendonly is ${aof === '0' ? 'no' : 'unknown'} (set "appendonly yes")`);
  if (policy !== 'noeviction') problems.push(`maxmemory-policy is ${policy ?? 'unknown'} (set "maxmemory-policy noeviction")`);
  if (problems.length > 0) {
    throw new ChainpilotError(
      'JOURNAL_REDIS_NOT_DURABLE',
      `Redis cannot hold the intent journal: ${problems.join('; ')}; see docs/scale-out.md#redis-settings`,
      {
        retry: 'not_retryable',
        context: { aofEnabled: aof ?? null, maxmemoryPolicy: policy ?? null },
      },
    );
  }
  let appendfsync: string | undefined;
  try {
    const r = (await redis.config('GET', 'appendfsync')) as string[];
    appendfsync = r[1];
  } catch {
    appendfsync = undefined; // CONFIG disabled (managed Redis): the policy is the operator's to state
  }
  return { appendfsync };
}

const shas = new Map<string, string>();

/** Runs a script by its SHA1 (EVALSHA), loading it with EVAL when Redis does not know it (first use, after a restart). */
export async function evalScript(redis: Redis, script: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
  let sha = shas.get(script);
  if (sha === undefined) {
    sha = createHash('sha1').update(script).digest('hex');
    shas.set(script, sha);
  }
  try {
    return await redis.evalsha(sha, keys.length, ...keys, ...args);
  } catch (e) {
    if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
    return await redis.eval(script, keys.length, ...keys, ...args);
  }
}

function decodeAttempt(json: string | undefined, state: string | undefined, n: number): AttemptRecord {
  let p: { signature?: unknown; txBase64?: unknown; blockhash?: unknown; expiryBlockHeight?: unknown; slippageBps?: unknown };
  try {
    p = JSON.parse(json ?? '') as typeof p;
  } catch (e) {
    throw new ChainpilotError('JOURNAL_CORRUPT', `journal attempt ${n} is not JSON; restore Redis from its AOF or a backup`, { retry: 'fatal', cause: e });
  }
  const ok =
    typeof p.signature === 'string' &&
    typeof p.txBase64 === 'string' &&
    typeof p.blockhash === 'string' &&
    typeof p.expiryBlockHeight === 'number' &&
    typeof p.slippageBps === 'number' &&
    (state === 'SIGNED' || state === 'SENT' || state === 'LANDED' || state === 'FAILED_ON_CHAIN' || state === 'EXPIRED');
  if (!ok) throw new ChainpilotError('JOURNAL_CORRUPT', `journal attempt ${n} has a missing or invalid field`, { retry: 'fatal', context: { attempt: n } });
  return {
    n,
    signature: p.signature as string,
    txBase64: p.txBase64 as string,
    blockhash: p.blockhash as string,
    expiryBlockHeight: p.expiryBlockHeight as number,
    slippageBps: p.slippageBps as number,
    state,
  };
}

function mapScriptError(e: unknown, wallet: string, id: string, epoch: number): unknown {
  const msg = e instanceof Error ? e.message : String(e);
  const tag = /^(?:ERR )?(FENCED|NOT_FOUND|BAD_TRANSITION|DUP_SIG)\b ?(.*)$/s.exec(msg);
  if (!tag) return e;
  const [, kind, rest = ''] = tag;
  if (kind === 'FENCED') {
    return new ChainpilotError('JOURNAL_FENCED', `the lease of wallet ${wallet} was taken over (${rest}); this worker stops writing and sending for it`, {
      retry: 'fatal',
      context: { wallet, intentId: id, epoch },
    });
  }
  if (kind === 'NOT_FOUND') {
    return new ChainpilotError('JOURNAL_NOT_FOUND', `intent ${id} is not in the journal; submit it before changing its state`, {
      retry: 'fatal',
      context: { intentId: id },
    });
  }
  if (kind === 'DUP_SIG') {
    return new ChainpilotError('JOURNAL_DUPLICATE_SIGNATURE', `signature ${rest} is already journaled; rebuild intent ${id} with a newer blockhash`, {
      retry: 'retryable',
      context: { intentId: id, signature: rest },
    });
  }
  const [from, to] = rest.split(' ');
  return new ChainpilotError('JOURNAL_BAD_TRANSITION', rest.startsWith('signature') ? rest : `intent ${id} cannot move from ${from ?? '?'} to ${to ?? '?'}`, {
    retry: 'fatal',
    context: { intentId: id, from: from ?? null, to: to ?? null },
  });
}
