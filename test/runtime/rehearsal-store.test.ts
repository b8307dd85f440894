/**
 * The store of a live rehearsal on the embedded simulator (issue 29): every run is a new chain, so
 * a store left by an earlier rehearsal of the same deployment and wallet (its intents, its day
 * spend, its risk day) is set aside as `<path>.previous` and the run starts a fresh journal that
 * records its chain. A store of another deployment or wallet is still refused, never set aside.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isChainpilotError, lamports, type UnixMs } from '../../src/core/index.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { openDeploymentStore, type DeploymentStore } from '../../src/runtime/store/deployment-store.js';

const WALLET = 'WalletA111111111111111111111111111111111111';
let dir = '';
const open: DeploymentStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const intent = (id: string): OrderIntent => ({
  id,
  strategyId: 's',
  side: 'buy',
  mint: 'M',
  decimals: 6,
  spendLamports: lamports(100_000_000n),
  slippageBps: 100 as OrderIntent['slippageBps'],
  priorityFeeLamports: lamports(0n),
  referencePrice: undefined,
  createdAt: 1 as UnixMs,
  reason: 'test',
});

describe('a rehearsal store (freshChain)', () => {
  it("sets aside the earlier rehearsal's store, spend and all, and says where; the new store's day spend starts at zero", async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-rehearsal-store-'));
    const path = join(dir, 'j.sqlite');
    const first = openDeploymentStore({ path, deployment: 'live-sim', wallet: WALLET, freshChain: 'simulator-aaaa' });
    expect(first.previous).toBeUndefined();
    expect(first.chain).toBe('simulator-aaaa');
    const cap = { spendLamports: 100_000_000n, day: '2026-11-27', dailyCapLamports: 150_000_000n };
    expect(await first.journal.create(intent('i1'), cap, 1)).toMatchObject({ kind: 'created' });
    // a second one that day is over the cap in this store
    expect(await first.journal.create(intent('i1b'), cap, 1)).not.toMatchObject({ kind: 'created' });
    await first.close();

    const second = openDeploymentStore({ path, deployment: 'live-sim', wallet: WALLET, freshChain: 'simulator-bbbb' });
    open.push(second);
    expect(second.previous).toBe(`${path}.previous`);
    expect(existsSync(`${path}.previous`)).toBe(true);
    expect(second.chain).toBe('simulator-bbbb');
    expect(await second.journal.get('i1')).toBeUndefined();
    // the day's spend starts from zero on the new chain: the same intent size fits again
    expect(await second.journal.create(intent('i2'), cap, 2)).toMatchObject({ kind: 'created' });
  });

  it('refuses the store of another deployment with RUNTIME_STORE_FOREIGN and leaves it where it is', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-rehearsal-store-'));
    const path = join(dir, 'j.sqlite');
    await openDeploymentStore({ path, deployment: 'other', wallet: WALLET, freshChain: 'simulator-aaaa' }).close();
    let code = '';
    try {
      open.push(openDeploymentStore({ path, deployment: 'live-sim', wallet: WALLET, freshChain: 'simulator-bbbb' }));
    } catch (e) {
      code = isChainpilotError(e) ? e.code : String(e);
    }
    expect(code).toBe('RUNTIME_STORE_FOREIGN');
    expect(existsSync(`${path}.previous`)).toBe(false);
  });
});
