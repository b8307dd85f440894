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

/** A `redis-server` this test started: AOF on, in its own temp dir, on a free port. */
export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** SIGKILLs the server (no shutdown save) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port and dir: it loads its AOF. */
  restart(): Promise<void>;
  /** Stops it and removes its dir. */
  stop(): Promise<void>;
}

/** Finds a free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts `redis-server` (from PATH) with `appendonly yes`, `appendfsync always` (or `fsync`) and
 * `maxmemory-policy noeviction` in a temp dir; `extra` adds config lines (e.g. `appendonly no`).
 */
export async function startOwnRedis(options: { readonly fsync?: 'always' | 'everysec'; readonly extra?: readonly string[] } = {}): Promise<OwnRedis> {
  const { spawn } = await import('node:child_process');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'chainpilot-redis-'));
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--appendfsync',
    options.fsync ?? 'always',
    '--maxmemory-policy',
    'noeviction',
    '--save',
    '',
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
    ...(options.extra ?? []).flatMap((l) => {
      const [k, ...v] = l.split(' ');
      return [`--${k ?? ''}`, v.join(' ')];
    }),
  ];
  let child: ReturnType<typeof spawn> | undefined;
  const launch = async (): Promise<void> => {
    const c = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = c;
    let err = '';
    c.stderr?.on('data', (b: Buffer) => (err += b.toString()));
    for (let i = 0; i < 200; i++) {
      if (c.exitCode !== null) throw new Error(`redis-server exited: ${err}`);
      if (await reachable(port)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`redis-server did not listen on ${port}: ${err}`);
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((r) => {
      c.once('exit', () => r());
      c.kill('SIGKILL');
    });
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    kill,
    restart: launch,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      s.destroy();
      resolve(false);
    });
  });
}
