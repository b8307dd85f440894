/**
 * The engine's reader of a wallet's report stream, through its own consumer group: each entry is
 * applied, then acknowledged; its own pending entries are re-read first (after a restart nothing is
 * lost), duplicates (one key per signature, or per intent for outcomes without one) are dropped
 * and counted, and the stream is trimmed below what every group has acknowledged.
 * State: the dedup window and the counters of applied and duplicate reports and of report lag.
 */
import type { Redis } from 'ioredis';
import { describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { ExecutionReport } from '../../engine/orders/execution-port.js';
import { decodeReport } from './report-codec.js';

/** Report keys remembered for dedup. */
const DEDUP_LIMIT = 100_000;
/** Entries read per XREADGROUP. */
const BATCH = 256;

export interface ReportReaderOptions {
  /** The connection for commands (group, ack, trim, info). */
  readonly redis: Redis;
  /** The connection for XREADGROUP, which may block. */
  readonly reader: Redis;
  readonly stream: string;
  readonly group: string;
  readonly consumer: string;
  readonly log: Logger;
  /** Wall clock for report lag (ms since the epoch, compared with stream entry ids). */
  readonly wallClockMs: () => number;
  /** Receives each report once, in stream order. */
  readonly onReport: (r: ExecutionReport) => void;
  /** Counts an undecodable entry (acknowledged and skipped) as a loop error. */
  readonly onLoopError: () => void;
}

export interface ReportReader {
  /** Creates the consumer group (from the stream's start) unless it exists. */
  ensureGroup(): Promise<void>;
  /** Reads one batch (own pending entries first, then new ones, blocking up to `blockMs`), applies and acknowledges it; returns entries read. */
  readBatch(blockMs: number): Promise<number>;
  /** Entries not yet delivered to this group, plus delivered but unacknowledged (0 before the stream exists). */
  behind(): Promise<number>;
  readonly counters: { readonly applied: number; readonly duplicates: number; readonly lagMs: number | undefined };
}

/** Creates the reader of `o.stream` as `o.consumer` in `o.group`. */
export function createReportReader(o: ReportReaderOptions): ReportReader {
  const { redis, reader, stream, group, consumer, log } = o;
  const seen = new Set<string>();
  const counters = { applied: 0, duplicates: 0, lagMs: undefined as number | undefined };

  const deliver = (r: ExecutionReport): void => {
    const key = r.type === 'filled' && r.fill.signature !== undefined ? `sig:${r.fill.signature}` : `${r.type}:${r.intentId}`;
    if (seen.has(key)) {
      counters.duplicates++;
      log.info({ intentId: r.intentId, type: r.type }, 'duplicate report dropped');
      return;
    }
    seen.add(key);
    if (seen.size > DEDUP_LIMIT) seen.delete(seen.values().next().value as string);
    counters.applied++;
    o.onReport(r);
  };

  /**
   * Trims the stream below the oldest entry some group has not acknowledged (its oldest pending
   * entry, or the entry after its last delivered one): never what another group still has to read.
   */
  const trimAcknowledged = async (): Promise<void> => {
    const groups = ((await redis.xinfo('GROUPS', stream)) as unknown[][]).map(toRecord);
    let floor: string | undefined;
    for (const g of groups) {
      const name = typeof g['name'] === 'string' ? g['name'] : '';
      const delivered = g['last-delivered-id'];
      let first = typeof delivered === 'string' ? delivered : '0-0';
      if (Number(g['pending'] ?? 0) > 0) {
        const summary = (await redis.xpending(stream, name)) as [number, string | null, string | null, unknown];
        if (summary[1] !== null) first = summary[1];
      }
      if (floor === undefined || compareIds(first, floor) < 0) floor = first;
    }
    if (floor !== undefined && floor !== '0-0') await redis.xtrim(stream, 'MINID', floor);
  };

  return {
    counters,
    async ensureGroup() {
      try {
        await redis.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
      } catch (e) {
        if (!(e instanceof Error) || !e.message.includes('BUSYGROUP')) throw e;
      }
    },
    async readBatch(blockMs) {
      let n = 0;
      for (const from of ['0', '>']) {
        const args: (string | number)[] = ['GROUP', group, consumer, 'COUNT', BATCH];
        if (from === '>' && blockMs > 0) args.push('BLOCK', blockMs);
        const res = (await reader.call('XREADGROUP', ...args, 'STREAMS', stream, from)) as [string, [string, string[] | null][]][] | null;
        const entries = res?.[0]?.[1] ?? [];
        for (const [id, fields] of entries) {
          // A pending entry whose body was trimmed comes back without fields: nothing to apply.
          const text = fields ? fields[fields.indexOf('r') + 1] : undefined;
          try {
            if (text !== undefined) deliver(decodeReport(text));
            counters.lagMs = Math.max(0, o.wallClockMs() - Number(id.split('-')[0]));
          } catch (e) {
            o.onLoopError();
            log.error({ entry: id, err: describeError(e) }, 'undecodable report acknowledged and skipped');
          }
          await redis.xack(stream, group, id);
        }
        if (entries.length > 0) await trimAcknowledged();
        n += entries.length;
        if (from === '0' && entries.length > 0) return n; // finish the pending list before reading new entries
      }
      return n;
    },
    async behind() {
      const groups = await (redis.xinfo('GROUPS', stream).catch(() => []) as Promise<unknown[]>); // no stream before the first start: nothing behind
      const own = (groups as unknown[][]).map(toRecord).find((g) => g['name'] === group);
      return Number(own?.['lag'] ?? 0) + Number(own?.['pending'] ?? 0);
    },
  };
}

function toRecord(flat: unknown[]): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) r[String(flat[i])] = flat[i + 1];
  return r;
}

/** Orders two stream entry ids (`ms-seq`). */
function compareIds(a: string, b: string): number {
  const [am = 0n, as = 0n] = a.split('-').map((x) => BigInt(x));
  const [bm = 0n, bs = 0n] = b.split('-').map((x) => BigInt(x));
  return am === bm ? (as === bs ? 0 : as < bs ? -1 : 1) : am < bm ? -1 : 1;
}
