/**
 * Sends one signed transaction and follows it to a decision. While its blockhash can land, only
 * the same bytes are re-broadcast; statuses are polled, `err` is read before the commitment counts,
 * commitments are compared by rank, and any RPC error or timeout means "unknown". Only after the
 * block height passed the expiry (plus a margin) does a history-searching status query decide:
 * not known → expired; err → failed; otherwise landed. That answer counts only when its context
 * slot is at or past the slot read after the height passed (a node behind a load balancer that
 * lags would not know a transaction that landed): a staler answer is asked again, at most
 * MAX_STALE_ANSWERS times, then LIVE_EXPIRY_UNPROVEN leaves the intent to start-up reconciliation.
 */
import { ChainpilotError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import { throwIfAborted } from '../../core/abort.js';
import { clockSleep } from '../../core/clock.js';
import type { StatusSource } from './status-batcher.js';
import { atLeast } from '../../client/rpc/commitment.js';
import type { Commitment, LiveRpcPort, SignatureStatus } from './ports.js';

export type AttemptOutcome =
  { readonly kind: 'landed'; readonly status: SignatureStatus } | { readonly kind: 'failed'; readonly status: SignatureStatus } | { readonly kind: 'expired' };

export interface ConfirmSettings {
  /** Status poll interval (ms of the injected clock). */
  readonly pollMs: number;
  /** Re-broadcast interval of the same bytes while the blockhash can land (1000–2000 ms in production). */
  readonly rebroadcastMs: number;
  /** Blocks past the expiry height to wait before the deciding history query. */
  readonly expiryMarginBlocks: number;
  /** Commitment a landing (or failure) must reach before it counts. */
  readonly commitment: Commitment;
}

/** History answers from a slot before the expiry's that are asked again before giving up. */
export const MAX_STALE_ANSWERS = 30;

export interface ConfirmArgs {
  readonly rpc: Pick<LiveRpcPort, 'sendTransaction' | 'getSignatureStatuses' | 'getBlockHeight' | 'getSlot'>;
  /** Where statuses come from (default: one direct call per read; the executor passes a batcher). */
  readonly statuses?: StatusSource;
  readonly clock: Clock;
  readonly signature: string;
  readonly txBase64: string;
  readonly expiryBlockHeight: number;
  readonly settings: ConfirmSettings;
  /** Called once, after the first send call returned or failed (its outcome is unknown either way). */
  readonly onFirstSend?: () => Promise<void>;
  /** Called after every send call returned, before anything is journaled (crash-test probe). */
  readonly afterSend?: () => void;
  readonly signal?: AbortSignal;
  /** Counts a send, status or block-height read that failed (its outcome is "unknown", never silent). */
  readonly onReadError?: (what: 'send-error' | 'status-error' | 'height-error' | 'stale-status', error: unknown) => void;
}

/** Follows one transaction to `landed`, `failed` or `expired`. Loops while the outcome is unknown. */
export async function confirmAttempt(a: ConfirmArgs): Promise<AttemptOutcome> {
  const { rpc, clock, settings, signal } = a;
  const statuses = a.statuses ?? directStatuses(rpc, a.onReadError);
  const sig = signal ? { signal } : {};
  let lastSendAt = -Infinity;
  let firstSendDone = false;
  let height: number | undefined;
  /** The slot read once the height passed the expiry plus margin: a deciding answer must be at least as fresh. */
  let passSlot: number | undefined;
  let stale = 0;
  for (;;) {
    throwIfAborted(signal, 'confirming a transaction');
    const canLand = height === undefined || height <= a.expiryBlockHeight;
    if (canLand && clock.now() - lastSendAt >= settings.rebroadcastMs) {
      lastSendAt = clock.now();
      try {
        await rpc.sendTransaction(a.txBase64, { skipPreflight: true, maxRetries: 0, ...sig });
      } catch (e) {
        // A failed send has an unknown outcome: the status poll decides, never the send.
        throwIfAborted(signal, 'confirming a transaction');
        a.onReadError?.('send-error', e);
      }
      a.afterSend?.();
      if (!firstSendDone) {
        firstSendDone = true;
        await a.onFirstSend?.();
      }
    }
    const status = await statuses.status(a.signature, false, signal);
    throwIfAborted(signal, 'confirming a transaction');
    if (status && atLeast(status.confirmationStatus, settings.commitment)) {
      return status.err !== null && status.err !== undefined ? { kind: 'failed', status } : { kind: 'landed', status };
    }
    try {
      height = await rpc.getBlockHeight({ commitment: 'confirmed', ...sig });
    } catch (e) {
      throwIfAborted(signal, 'confirming a transaction');
      a.onReadError?.('height-error', e);
    }
    if (height !== undefined && height > a.expiryBlockHeight + settings.expiryMarginBlocks) {
      passSlot ??= await slotNow(a, sig);
      const final = passSlot === undefined ? undefined : await historyStatus(a, sig);
      throwIfAborted(signal, 'confirming a transaction');
      if (final !== undefined && passSlot !== undefined && final.slot < passSlot) {
        // An answer from before the expiry passed proves nothing: ask again, bounded.
        stale++;
        a.onReadError?.(
          'stale-status',
          new ChainpilotError('LIVE_EXPIRY_UNPROVEN', `status answered from slot ${final.slot}, before slot ${passSlot}; asking again`, { retry: 'retryable' }),
        );
        if (stale >= MAX_STALE_ANSWERS) {
          throw new ChainpilotError(
            'LIVE_EXPIRY_UNPROVEN',
            `signature ${a.signature}: ${stale} history answers came from slots before ${passSlot} (the last from ${final.slot}); expiry not proven, the intent is left to start-up reconciliation`,
            { retry: 'retryable', context: { signature: a.signature, passSlot, answerSlot: final.slot } },
          );
        }
      } else if (final?.value === null) return { kind: 'expired' };
      else if (final?.value && atLeast(final.value.confirmationStatus, settings.commitment)) {
        return final.value.err !== null && final.value.err !== undefined ? { kind: 'failed', status: final.value } : { kind: 'landed', status: final.value };
      }
      // Known but not yet at the target commitment, or unknown because of an RPC error: keep polling.
    }
    await clockSleep(clock, settings.pollMs, signal);
  }
}

/** One direct `getSignatureStatuses` call per read. */
function directStatuses(rpc: Pick<LiveRpcPort, 'getSignatureStatuses'>, onError?: ConfirmArgs['onReadError']): StatusSource {
  return {
    async status(signature, history, signal) {
      try {
        const r = await rpc.getSignatureStatuses([signature], {
          ...(history ? { searchTransactionHistory: true } : {}),
          ...(signal ? { signal } : {}),
        });
        return r.value.length === 1 ? r.value[0] : undefined;
      } catch (e) {
        onError?.('status-error', e);
        return undefined;
      }
    },
  };
}

/**
 * The slot now, read after the height passed the expiry: `getSlot` when the port has it, else the
 * context slot of a recent status read. Undefined when the read failed (unknown: ask later).
 */
async function slotNow(a: ConfirmArgs, sig: { signal?: AbortSignal }): Promise<number | undefined> {
  try {
    if (a.rpc.getSlot) return await a.rpc.getSlot({ commitment: 'confirmed', ...sig });
    return (await a.rpc.getSignatureStatuses([a.signature], sig)).context.slot;
  } catch (e) {
    a.onReadError?.('height-error', e);
    return undefined;
  }
}

/** One history-searching status read with its context slot (not batched: it decides); undefined when it failed. */
async function historyStatus(a: ConfirmArgs, sig: { signal?: AbortSignal }): Promise<{ slot: number; value: SignatureStatus | null | undefined } | undefined> {
  try {
    const r = await a.rpc.getSignatureStatuses([a.signature], { searchTransactionHistory: true, ...sig });
    return { slot: r.context.slot, value: r.value.length === 1 ? r.value[0] : undefined };
  } catch (e) {
    a.onReadError?.('status-error', e);
    return undefined;
  }
}
