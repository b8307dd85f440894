import { describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

describe('ledger services lifecycle', () => {
  it('stops promptly even with a request held by a timeout fault, leaving no slot timer and no listener', async () => {
    const h = await startHarness();
    expect(h.clock.pending()).toBe(1); // the slot timer
    h.ledger.faults.inject({ kind: 'rpc', rpc: { kind: 'timeout', method: 'getSlot' } });
    // the server asks the fault plan when the request arrives: that is the proof it is being held
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const nextRpc = h.ledger.faults.nextRpc.bind(h.ledger.faults);
    h.ledger.faults.nextRpc = (method) => {
      arrived();
      return nextRpc(method);
    };
    const held = fetch(h.rpcUrl, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }) }).then(
      () => 'answered',
      () => 'connection closed',
    );
    await reached;
    const started = performance.now();
    await h.stop();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await held).toBe('connection closed');
    expect(h.clock.pending()).toBe(0);
    const slot = h.ledger.slot();
    h.clock.advance(10_000);
    expect(h.ledger.slot()).toBe(slot);
    await expect(fetch(h.rpcUrl, { method: 'POST', body: '{}' })).rejects.toThrow();
    await expect(fetch(h.swapUrl, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
