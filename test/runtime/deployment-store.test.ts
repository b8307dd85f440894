/**
 * The deployment store knows its owner and has one holder: a store of another deployment or wallet
 * is refused with both names, a second process is refused with the holder's pid (a real child
 * process), a dead holder's lock is taken over, and store.path resolves against the deployment file.
 * A paper store's connections run with a bounded page cache (sqlite-settings.ts), a live store's
 * keep their durable settings.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { isChainpilotError } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { PAPER_STORE_CACHE_KIB } from '../../src/executors/journal/sqlite-settings.js';
import { openDeploymentStore, resolveStorePath, type DeploymentStore } from '../../src/runtime/store/deployment-store.js';
import { acquireStoreLock } from '../../src/runtime/store/store-lock.js';

const WALLET_A = 'WalletA111111111111111111111111111111111111';
const WALLET_B = 'WalletB111111111111111111111111111111111111';

let dir = '';
const open: DeploymentStore[] = [];
let child: ChildProcess | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  for (const s of open.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function tmp(): string {
  dir = mkdtempSync(join(tmpdir(), 'cp-store-'));
  return dir;
}

function codeOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (isChainpilotError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a coded error');
}

describe('deployment store', () => {
  it('refuses a store that belongs to another deployment or wallet, naming both', async () => {
    const path = join(tmp(), 'store.db');
    const first = openDeploymentStore({ path, deployment: 'alpha', wallet: WALLET_A });
    await first.close();
    const byName = codeOf(() => openDeploymentStore({ path, deployment: 'beta', wallet: WALLET_A }));
    expect(byName.code).toBe('RUNTIME_STORE_FOREIGN');
    expect(byName.message).toContain('deployment alpha');
    expect(byName.message).toContain('deployment beta');
    const byWallet = codeOf(() => openDeploymentStore({ path, deployment: 'alpha', wallet: WALLET_B }));
    expect(byWallet.code).toBe('RUNTIME_STORE_FOREIGN');
    expect(byWallet.message).toContain(WALLET_A);
    expect(byWallet.message).toContain(WALLET_B);
    // The refusals released the lock: the owner opens it again.
    const again = openDeploymentStore({ path, deployment: 'alpha', wallet: WALLET_A });
    open.push(again);
    expect(existsSync(`${path}.lock`)).toBe(true);
  });

  it("bounds both connections' page cache of a paper store, keeps the WAL and NORMAL sync, and leaves a live store's settings as they were", () => {
    const paper = openDeploymentStore({ path: join(tmp(), 'paper.db'), deployment: 'book', paper: { market: 'm1', at: 1_700_000_000_000 } });
    open.push(paper);
    const p = paper.settings();
    expect(PAPER_STORE_CACHE_KIB).toBe(512);
    expect(p.store).toEqual({ cacheKib: 512, walAutocheckpointPages: 10_000, synchronous: 1, journalMode: 'wal' });
    expect(p.journal).toMatchObject({ cacheKib: 512, journalMode: 'wal' });
    // the bound holds after the book has been read (a pragma is per connection and survives transactions)
    expect(paper.paper?.restored().fills).toEqual([]);
    expect(paper.settings().store.cacheKib).toBe(512);

    const live = openDeploymentStore({ path: join(dir, 'live.db'), deployment: 'wallet', wallet: WALLET_A });
    open.push(live);
    // better-sqlite3's build default (SQLITE_DEFAULT_CACHE_SIZE=-16000): one live store per wallet, not bounded here
    expect(live.settings().store).toEqual({ cacheKib: 16_000, walAutocheckpointPages: 1_000, synchronous: 2, journalMode: 'wal' });
    expect(live.settings().journal).toMatchObject({ cacheKib: 16_000, synchronous: 1, walAutocheckpointPages: 10_000 });
  });

  it('resolves store.path against the deployment file, not the working directory', () => {
    const d = tmp();
    mkdirSync(join(d, 'deploy'));
    const file = join(d, 'deploy', 'bot.yaml');
    writeFileSync(file, ['version: 1', 'name: bot', 'strategies:', '  - use: curve-momentum', 'store:', '  path: ./state/bot.db', ''].join('\n'));
    expect(resolveStorePath(loadDeployment(file))).toBe(join(d, 'deploy', 'state', 'bot.db'));
  });

  it('refuses a second process on one store with the holder pid, and takes the lock over once that process is dead', async () => {
    const d = tmp();
    const path = join(d, 'store.db');
    const bundle = join(d, 'holder.cjs');
    await build({
      entryPoints: [fileURLToPath(new URL('./support/store-holder.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: bundle,
      external: ['better-sqlite3'],
      logLevel: 'error',
    });
    const holder = spawn(process.execPath, [bundle], {
      env: { ...process.env, STORE: path, NODE_PATH: fileURLToPath(new URL('../../node_modules', import.meta.url)) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = holder;
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      let err = '';
      holder.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /held (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      holder.stderr!.on('data', (b: Buffer) => void (err += b.toString()));
      holder.on('exit', (code) => reject(new Error(`holder exited ${code}: ${err}`)));
    });
    expect(pid).toBe(holder.pid);
    const refused = codeOf(() => openDeploymentStore({ path, deployment: 'holder' }));
    expect(refused.code).toBe('RUNTIME_STORE_LOCKED');
    expect(refused.message).toContain(`process ${pid}`);

    const exited = new Promise<void>((resolve) => holder.once('exit', () => resolve()));
    holder.kill('SIGKILL');
    await exited;
    child = undefined;
    expect(readFileSync(`${path}.lock`, 'utf8').trim()).toBe(String(pid)); // left behind by the dead holder
    const taken = openDeploymentStore({ path, deployment: 'holder' });
    open.push(taken);
    expect(readFileSync(`${path}.lock`, 'utf8').trim()).toBe(String(process.pid));
  });

  it('refuses a second holder in the same process, and a released lock can be taken again', () => {
    const path = join(tmp(), 'store.db');
    const lock = acquireStoreLock(path);
    expect(codeOf(() => acquireStoreLock(path)).code).toBe('RUNTIME_STORE_LOCKED');
    lock.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
    acquireStoreLock(path).release();
  });

  it('takes over a stale lock without stealing a live one that a contender wrote meanwhile', () => {
    const path = join(tmp(), 'store.db');
    writeFileSync(`${path}.lock`, '999999\n');
    const alive = new Set<number>([4242]);
    // The contender (pid 4242) takes the stale lock first; our takeover must then refuse, not steal.
    const contender = acquireStoreLock(path, { pid: 4242, isAlive: (p) => alive.has(p) });
    expect(readFileSync(`${path}.lock`, 'utf8').trim()).toBe('4242');
    expect(codeOf(() => acquireStoreLock(path, { pid: 5151, isAlive: (p) => alive.has(p) })).message).toContain('process 4242');
    contender.release();
  });
});
