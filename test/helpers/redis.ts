/**
 * Redis for tests: `REDIS_URL` or redis://127.0.0.1:6379. On a machine without Redis the tests that
 * need it are skipped with a line saying why; under CI=true a missing Redis is a failure.
 */
import net from 'node:net';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Resolves true when something accepts TCP connections at REDIS_URL within `timeoutMs`. */
export async function redisReachable(timeoutMs = 500): Promise<boolean> {
  const u = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Decides whether Redis tests run. Use as `describe.skipIf(!(await useRedis()))(...)`.
 * Throws under CI=true when Redis is missing, so CI never silently skips them.
 */
export async function useRedis(): Promise<boolean> {
  if (await redisReachable()) return true;
  if (process.env.CI === 'true') {
    throw new Error(`CI=true but Redis is not reachable at ${REDIS_URL}: start redis-server or set REDIS_URL`);
  }
  console.warn(`[skip] Redis tests skipped: nothing listens at ${REDIS_URL} (set REDIS_URL or start redis-server)`);
  return false;
}
