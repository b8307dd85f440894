/**
 * Single-use tickets for what a browser cannot send a bearer token to (an EventSource, a report
 * opened in a new tab): bought with the token, valid `ttlMs`, compared in constant time, and taken
 * once.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as s from '../api-schemas.js';

/** The 401 answer of a route that takes a ticket, in the OpenAPI document. */
export const ticketRefused = s.errorBody.describe('missing, used or expired ticket');

export interface Tickets {
  readonly ttlMs: number;
  /** A new ticket, valid for `ttlMs`. */
  issue(): string;
  /** True once for a ticket that was issued and has not expired; it is then gone. */
  take(ticket: string): boolean;
}

export function createTickets(o: { readonly ttlMs: number; readonly now: () => number }): Tickets {
  const tickets = new Map<string, number>();
  return {
    ttlMs: o.ttlMs,
    issue() {
      if (tickets.size > 1_000) tickets.clear();
      const ticket = randomBytes(24).toString('hex');
      tickets.set(ticket, o.now() + o.ttlMs);
      return ticket;
    },
    take(ticket) {
      const t = o.now();
      for (const [k, exp] of tickets) if (exp <= t) tickets.delete(k);
      const given = Buffer.from(ticket);
      for (const [k] of tickets) {
        const want = Buffer.from(k);
        if (want.length === given.length && timingSafeEqual(want, given)) {
          tickets.delete(k);
          return true;
        }
      }
      return false;
    },
  };
}
