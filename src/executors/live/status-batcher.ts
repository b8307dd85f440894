/**
 * Batches signature-status reads of every in-flight transaction into one `getSignatureStatuses`
 * call per event-loop turn (at most 256 signatures per call, the RPC's limit), so many in-flight
 * intents cost one request per poll instead of one each. An RPC error makes every waiting answer
 * "unknown" (`undefined`), never "not found" (`null`).
 */
import type { LiveRpcPort, SignatureStatus } from './ports.js';

/** Most signatures one getSignatureStatuses call accepts. */
export const MAX_SIGNATURES_PER_CALL = 256;

export interface StatusSource {
  /** The status (`null`: the node does not know it; `undefined`: unknown because the read failed). */
  status(signature: string, history: boolean, signal?: AbortSignal): Promise<SignatureStatus | null | undefined>;
}

interface Waiter {
  readonly signature: string;
  readonly resolve: (s: SignatureStatus | null | undefined) => void;
}

/** A status source that batches reads made in the same event-loop turn. */
export function createStatusBatcher(rpc: Pick<LiveRpcPort, 'getSignatureStatuses'>, onError?: (error: unknown) => void): StatusSource {
  const queues: Record<'recent' | 'history', Waiter[]> = { recent: [], history: [] };
  let scheduled = false;

  const flushOne = async (history: boolean, batch: Waiter[]): Promise<void> => {
    const unique = [...new Set(batch.map((w) => w.signature))];
    const found = new Map<string, SignatureStatus | null | undefined>();
    for (let i = 0; i < unique.length; i += MAX_SIGNATURES_PER_CALL) {
      const chunk = unique.slice(i, i + MAX_SIGNATURES_PER_CALL);
      try {
        const r = await rpc.getSignatureStatuses(chunk, history ? { searchTransactionHistory: true } : {});
        if (r.value.length === chunk.length) chunk.forEach((s, k) => found.set(s, r.value[k]));
      } catch (e) {
        // unknown: leave these signatures out of `found` (counted by the caller)
        onError?.(e);
      }
    }
    for (const w of batch) w.resolve(found.get(w.signature));
  };

  const flush = (): void => {
    scheduled = false;
    const recent = queues.recent.splice(0);
    const history = queues.history.splice(0);
    if (recent.length) void flushOne(false, recent);
    if (history.length) void flushOne(true, history);
  };

  return {
    status(signature, history, signal) {
      return new Promise((resolve) => {
        if (signal?.aborted) {
          resolve(undefined);
          return;
        }
        queues[history ? 'history' : 'recent'].push({ signature, resolve });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
