/**
 * Prices the positions restored from the journal before the engine accepts events: one REST look-up
 * (`POST /price/multi`, 100 tokens per request) through the data port, marks in SOL per whole token.
 * Only a SOL-quoted price (`priceQuote` or `priceSol`) marks a position: a USD price cannot be
 * turned into SOL exactly and would fire take-profit or stop-loss exits on a wrong scale, so a token
 * without one stays unpriced until its first price frame (logged).
 */
import { decimal, describeError, type Logger } from '../../core/index.js';
import type { DataPort } from '../strategy/data-lookup.js';

const BATCH = 100;

/** SOL prices of `mints` that the service knows (decimal strings), by mint. */
export async function fetchSolPrices(data: DataPort, mints: readonly string[], log: Logger, signal?: AbortSignal): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < mints.length; i += BATCH) {
    const part = mints.slice(i, i + BATCH);
    let body: unknown;
    try {
      body = await data.get('/price/multi', { tokens: part.join(',') }, signal);
    } catch (e) {
      log.warn({ tokens: part.length, err: describeError(e) }, 'restored positions: price look-up failed; they stay unpriced until their first price frame');
      continue;
    }
    for (const mint of part) {
      const price = solPrice(isRecord(body) ? body[mint] : undefined);
      if (price === undefined) log.warn({ mint }, 'restored position: no SOL price from REST; it stays unpriced until its first price frame');
      else out.set(mint, price);
    }
  }
  return out;
}

function solPrice(row: unknown): string | undefined {
  if (!isRecord(row)) return undefined;
  for (const k of ['priceQuote', 'priceSol', 'price_quote']) {
    const v = row[k];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return String(v).includes('e') ? decimal(v, 'price').toFixed() : String(v);
    if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) && Number(v) > 0) return v;
  }
  return undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
