import { describe, expect, it } from 'vitest';
import type { LiveRpcPort, SignatureStatus } from '../../src/executors/live/ports.js';
import { createStatusBatcher } from '../../src/executors/live/status-batcher.js';

const landed: SignatureStatus = { slot: 5, confirmations: 1, err: null, confirmationStatus: 'confirmed' };

/** A narrow fake: knows signatures starting with "L", records every call. */
function fakeRpc(fail = false, short = false) {
  const calls: { sigs: readonly string[]; history: boolean }[] = [];
  const rpc: Pick<LiveRpcPort, 'getSignatureStatuses'> = {
    async getSignatureStatuses(sigs, opts) {
      calls.push({ sigs, history: opts?.searchTransactionHistory === true });
      if (fail) throw new Error('503');
      const value = sigs.map((s) => (s.startsWith('L') ? landed : null));
      return { context: { slot: 9 }, value: short ? value.slice(1) : value };
    },
  };
  return { rpc, calls };
}

describe('status batcher', () => {
  it('answers reads of one event-loop turn with one call per kind, chunked at 256 signatures', async () => {
    const { rpc, calls } = fakeRpc();
    const b = createStatusBatcher(rpc);
    const sigs = Array.from({ length: 300 }, (_, i) => (i % 2 ? `L${i}` : `x${i}`));
    const answers = await Promise.all([...sigs.map((s) => b.status(s, false)), b.status('L1', false), b.status('x0', true)]);
    expect(calls.map((c) => `${c.sigs.length}/${c.history}`).sort()).toEqual(['1/true', '256/false', '44/false']);
    expect(answers.slice(0, 4)).toEqual([null, landed, null, landed]);
    expect(answers[300]).toEqual(landed); // a duplicate read shares the answer
    expect(answers[301]).toBeNull();
  });

  it('turns an RPC error or a malformed answer into "unknown", never "not found"', async () => {
    for (const [fail, short] of [
      [true, false],
      [false, true],
    ] as const) {
      const b = createStatusBatcher(fakeRpc(fail, short).rpc);
      expect(await Promise.all([b.status('x1', false), b.status('L2', true)])).toEqual([undefined, undefined]);
    }
  });
});
