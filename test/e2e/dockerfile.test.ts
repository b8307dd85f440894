/**
 * The Dockerfile, checked without a Docker engine (our machines have none): every path it copies
 * exists in a clean clone, the run stage is unprivileged with an init process, a health check and
 * the daemon as its command, and that command (with the image's paths mapped onto a clean clone)
 * runs the daemon as an unprivileged user with a read-only config directory and a writable data
 * directory, answers /healthz, and exits 0 on SIGTERM. Not checked here: the image build itself and
 * tini inside the image (docs/deploy.md says so).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = resolve('.');
const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8');
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const stages = instructions.reduce<string[][]>((acc, l) => {
  if (l.startsWith('FROM ')) acc.push([]);
  acc.at(-1)?.push(l);
  return acc;
}, []);
const finalStage = stages.at(-1) ?? [];
const jsonArgs = (prefix: string): string[] => JSON.parse(finalStage.find((l) => l.startsWith(`${prefix} `))?.slice(prefix.length + 1) ?? '[]') as string[];
const canDropPrivileges = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv');

describe('Dockerfile', () => {
  it('copies only paths that exist in a clean checkout', () => {
    const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: repo, encoding: 'utf8' }).split('\n').filter(Boolean));
    const exists = (p: string): boolean => tracked.has(p) || [...tracked].some((f) => f.startsWith(`${p.replace(/\/$/, '')}/`));
    const copies = instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from='));
    expect(copies.length).toBeGreaterThan(0);
    for (const c of copies) {
      const parts = c.split(/\s+/).slice(1);
      for (const src of parts.slice(0, -1)) expect(exists(src), `${src} in "${c}"`).toBe(true);
    }
  });

  it('runs the daemon unprivileged under an init process with a health check', () => {
    expect(finalStage).toContain('USER node');
    expect(jsonArgs('ENTRYPOINT').slice(0, 2)).toEqual(['tini', '--']);
    const cmd = jsonArgs('CMD');
    expect(cmd[0]).toBe('daemon');
    const listen = cmd[cmd.indexOf('--listen') + 1] ?? '';
    expect(finalStage.some((l) => l === `EXPOSE ${listen.split(':')[1] ?? ''}`)).toBe(true);
    expect(finalStage.some((l) => l.startsWith('HEALTHCHECK') && l.includes('/healthz') && l.includes(listen.split(':')[1] ?? 'none'))).toBe(true);
    expect(finalStage.some((l) => /^RUN .*chown node:node \/data/.test(l))).toBe(true);
    expect(finalStage.some((l) => l.startsWith('VOLUME') && l.includes('/data'))).toBe(true);
  });

  it.skipIf(!canDropPrivileges)(
    'its command runs the daemon from a clean clone as an unprivileged user, read-only config, writable data',
    async () => {
      const tmp = mkdtempSync(join(tmpdir(), 'cp-docker-'));
      chmodSync(tmp, 0o755);
      try {
        const app = join(tmp, 'app');
        execFileSync('git', ['clone', '--quiet', '--no-local', repo, app]);
        // Hard links: the clone gets the installed tree without copying 300 MB.
        execFileSync('cp', ['-al', join(repo, 'node_modules'), join(app, 'node_modules')]);
        // The build stage: `npm install` runs `prepare` (the compile); here node_modules is already in place.
        const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
        if (pkg.scripts?.['prepare']) execFileSync('npm', ['run', '--silent', 'prepare'], { cwd: app, stdio: 'ignore' });
        // COPY config/daemon /config: read-only for the node user.
        const config = join(tmp, 'config');
        cpSync(join(app, 'config', 'daemon'), config, { recursive: true });
        for (const f of readdirSync(config)) chmodSync(join(config, f), 0o444);
        chmodSync(config, 0o555);
        const data = join(tmp, 'data');
        mkdirSync(data);
        chownSync(data, 65534, 65534);
        const map = (a: string): string =>
          a
            .replace(/^\/app\//, `${app}/`)
            .replace(/^\/config$/, config)
            .replace(/^\/data$/, data);
        const args = [...jsonArgs('ENTRYPOINT').slice(2), ...jsonArgs('CMD')].map(map).map((a) => (a === '0.0.0.0:8790' ? '127.0.0.1:0' : a));
        expect(args.slice(0, 2)).toEqual(['node', `${app}/bin/chainpilot.js`]);
        const child = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args.slice(1)], {
          cwd: data,
          env: { PATH: process.env['PATH'] ?? '', HOME: data, CHAINPILOT_API_TOKEN: 'docker-test-token-0123456789' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (b: Buffer) => (out += b.toString()));
        child.stderr.on('data', (b: Buffer) => (err += b.toString()));
        const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
        const url = await new Promise<string>((resolveUrl, reject) => {
          const timer = setTimeout(() => reject(new Error(`daemon did not start:\n${out}\n${err}`)), 90_000);
          const check = (): void => {
            const m = /control API on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
            if (m?.[1]) {
              clearTimeout(timer);
              resolveUrl(m[1]);
            }
          };
          child.stdout.on('data', check);
          void exited.then((c) => reject(new Error(`daemon exited with ${String(c)}:\n${out}\n${err}`)));
        });
        const health = await fetch(`${url}/healthz`);
        expect(health.status).toBe(200);
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(err).not.toMatch(/EACCES|EROFS/);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
    240_000,
  );
});
