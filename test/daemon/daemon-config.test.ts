import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isChainpilotError, manualClock, silentLogger } from '../../src/core/index.js';
import { daemonApi } from '../../src/cli/daemon-api.js';
import { expandDeploymentPaths } from '../../src/service/daemon/deployment-files.js';
import { isLoopback, parseListen, startDaemon } from '../../src/service/daemon/run-daemon.js';
import { fakeHandle } from './fake-handle.js';
import { lifecycleConformance } from '../helpers/lifecycle-conformance.js';

const codeOf = async (f: () => unknown): Promise<string | undefined> => {
  try {
    await f();
  } catch (e) {
    return isChainpilotError(e) ? e.code : `uncoded: ${String(e)}`;
  }
  return undefined;
};

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const clock = manualClock(0);
const options = (paths: string[], extra: Partial<Parameters<typeof startDaemon>[0]> = {}): Parameters<typeof startDaemon>[0] => ({
  paths,
  dataDir: join(dir, 'data'),
  version: 'test',
  log: silentLogger(),
  clock,
  env: {},
  factory: (loaded) => fakeHandle(loaded, { now: () => clock.now() }),
  deps: { acquire: async () => ({ deps: {}, release: async () => undefined }) },
  ...extra,
});

describe('daemon configuration', () => {
  it('refuses a path that does not exist and a directory without deployment files', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-daemon-cfg-'));
    expect(await codeOf(() => expandDeploymentPaths([join(dir, 'missing')]))).toBe('RUNTIME_DAEMON_NO_FILES');
    expect(await codeOf(() => expandDeploymentPaths([dir]))).toBe('RUNTIME_DAEMON_NO_FILES');
  });

  it('parses host:port and refuses anything else', async () => {
    expect(parseListen('127.0.0.1:8790')).toEqual({ host: '127.0.0.1', port: 8790 });
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    for (const bad of ['8790', 'localhost:', 'host:70000', '']) expect(await codeOf(() => parseListen(bad))).toBe('RUNTIME_DAEMON_BAD_CONFIG');
    expect([isLoopback('127.0.0.2'), isLoopback('localhost'), isLoopback('::1'), isLoopback('0.0.0.0'), isLoopback('10.0.0.1')]).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('refuses a non-loopback address without a token, and a port already taken', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-daemon-cfg-'));
    writeFileSync(join(dir, 'a.yaml'), 'version: 1\nname: a\nstrategies:\n  - use: graduation-sniper\n');
    expect(await codeOf(() => startDaemon(options([dir], { listen: '0.0.0.0:0' })))).toBe('RUNTIME_DAEMON_UNSAFE_LISTEN');
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      expect(await codeOf(() => startDaemon(options([dir], { listen: `127.0.0.1:${port}` })))).toBe('RUNTIME_DAEMON_LISTEN_FAILED');
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  });

  it('refuses a non-loopback address with a weak token (short, blank, white space, repetitive) and accepts a strong one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-daemon-cfg-'));
    writeFileSync(join(dir, 'a.yaml'), 'version: 1\nname: a\nstrategies:\n  - use: graduation-sniper\n');
    for (const token of ['x', '   ', 'short-token-123', `${'a'.repeat(40)}`, ` ${'k3y'.repeat(12)} `, 'abcdefgh abcdefgh abcdefgh abcdefgh']) {
      expect(await codeOf(() => startDaemon(options([dir], { listen: '0.0.0.0:0', env: { CHAINPILOT_API_TOKEN: token } })))).toBe('RUNTIME_DAEMON_WEAK_TOKEN');
    }
    const strong = await startDaemon(options([dir], { listen: '0.0.0.0:0', env: { CHAINPILOT_API_TOKEN: 'f3a9c1d27b4e8a0c5d6e7f8091a2b3c4d5e6f708' } }));
    await strong.stop({ drainMs: 0 });
    // On loopback the token may be anything: the host is the guard.
    const local = await startDaemon(options([dir], { env: { CHAINPILOT_API_TOKEN: 'x' }, listen: '127.0.0.1:0' }));
    await local.stop({ drainMs: 0 });
  });

  it('the CLI client says when no daemon answers', async () => {
    const idle = net.createServer();
    await new Promise<void>((r) => idle.listen(0, '127.0.0.1', r));
    const port = (idle.address() as net.AddressInfo).port;
    await new Promise<void>((r) => idle.close(() => r()));
    expect(await codeOf(() => daemonApi({ url: `http://127.0.0.1:${port}`, env: {} }).get('/api/deployments'))).toBe('CLI_API_UNREACHABLE');
  });
});

describe('the running daemon as a Lifecycle', () => {
  lifecycleConformance({
    make: async () => {
      const own = mkdtempSync(join(tmpdir(), 'cp-daemon-life-'));
      writeFileSync(join(own, 'a.yaml'), 'version: 1\nname: a\nstrategies:\n  - use: graduation-sniper\n');
      const part = await startDaemon(options([own], { dataDir: join(own, 'data'), listen: '127.0.0.1:0', env: { CHAINPILOT_API_TOKEN: 'x' } }));
      return { part, cleanup: () => rmSync(own, { recursive: true, force: true }) };
    },
  });
});
