/**
 * Execution reports on the wire between workers and the engine (the wallet's report stream):
 * JSON with bigints as integer strings, checked on the way back so a bad entry fails loudly.
 */
import { z } from 'zod';
import { ChainpilotError } from '../../core/errors.js';
import { lamports, type UnixMs } from '../../core/units.js';
import type { ExecutionReport } from '../../engine/orders/execution-port.js';
import { decodeFill, encodeFill } from '../journal/codec.js';

const reportSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('accepted'), intentId: z.string(), at: z.number() }),
  z.object({ type: z.literal('filled'), intentId: z.string(), at: z.number(), fill: z.string(), strategyId: z.string().optional() }),
  z.object({ type: z.literal('rejected'), intentId: z.string(), at: z.number(), code: z.string(), reason: z.string() }),
  z.object({ type: z.literal('failed'), intentId: z.string(), at: z.number(), code: z.string(), reason: z.string(), feeLamports: z.string().regex(/^\d+$/) }),
  z.object({ type: z.literal('expired'), intentId: z.string(), at: z.number() }),
]);

/** Encodes a report for the stream. */
export function encodeReport(r: ExecutionReport): string {
  if (r.type === 'filled') return JSON.stringify({ ...r, fill: encodeFill(r.fill) });
  if (r.type === 'failed') return JSON.stringify({ ...r, feeLamports: r.feeLamports.toString() });
  return JSON.stringify(r);
}

/** Decodes a report written by {@link encodeReport}; throws QUEUE_BAD_JOB on a bad entry. */
export function decodeReport(text: string): ExecutionReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ChainpilotError('QUEUE_BAD_JOB', 'a report on the stream is not JSON', { retry: 'fatal', cause: e });
  }
  const p = reportSchema.safeParse(raw);
  if (!p.success) throw new ChainpilotError('QUEUE_BAD_JOB', `a report on the stream is invalid: ${p.error.issues[0]?.message ?? ''}`, { retry: 'fatal' });
  const r = p.data;
  const at = r.at as UnixMs;
  switch (r.type) {
    case 'filled':
      return { type: 'filled', intentId: r.intentId, at, fill: decodeFill(r.fill), ...(r.strategyId === undefined ? {} : { strategyId: r.strategyId }) };
    case 'failed':
      return { type: 'failed', intentId: r.intentId, at, code: r.code, reason: r.reason, feeLamports: lamports(r.feeLamports) };
    case 'rejected':
      return { type: 'rejected', intentId: r.intentId, at, code: r.code, reason: r.reason };
    default:
      return { type: r.type, intentId: r.intentId, at };
  }
}
