/** The control API's bearer check, apart from the app so that the front thread can load it without fastify. */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (v: string): Buffer => createHash('sha256').update(v).digest();

/** Constant-time check of an `Authorization` header against `token`. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = header === undefined ? null : /^Bearer (.+)$/.exec(header);
  return timingSafeEqual(digest(m?.[1] ?? ''), digest(token)) && m !== null;
}
