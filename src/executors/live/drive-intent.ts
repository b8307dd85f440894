/**
 * Drives one journaled intent from whatever state the journal holds to a terminal outcome, by the
 * rules of design.md §5. The same function runs for a fresh intent and for start-up
 * reconciliation, so a crash at any instant resumes through the same rules.
 */
import { ChainpilotError, describeError, isChainpilotError } from '../../core/errors.js';
import { fromRaw, lamportsToSol } from '../../core/decimal.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { cappedBackoff, throwIfAborted } from '../../core/abort.js';
import { lamports, type UnixMs } from '../../core/units.js';
import type { ExecutionReport, OrderIntent } from '../../engine/orders/execution-port.js';
import type { IntentJournal, IntentRecord, Resolution } from '../journal/journal.js';
import type { Signer } from '../signer/signer.js';
import { clockSleep } from '../../core/clock.js';
import { confirmAttempt } from './confirm-attempt.js';
import { minOutOf } from '../admission.js';
import { inspectSwap, LAMPORTS_PER_SIGNATURE } from './inspect.js';
import type { LiveSettings } from './live-settings.js';
import { slippageForAttempt } from './live-settings.js';
import { WSOL_MINT, type BuiltSwap, type LiveRpcPort, type SwapBuilderPort } from './ports.js';
import type { PriorityFeeSource } from './priority-fee.js';
import { readFill } from './read-fill.js';
import { warmSwapAccounts } from './swap-accounts.js';
import type { StatusSource } from './status-batcher.js';
import { isJournalUnavailable } from './journal-outage.js';
import { rememberedJournal, withSignedAttempt, type RememberedRecord } from './remembered-journal.js';

/**
 * Named instants a crash test can kill the process at. Between the decision and the first send, in
 * order: `created` (the decision journaled NEW, committed but not fsynced; live executor only),
 * `swapped` (the swap service answered), `inspected` (inspection passed), `built` (the block height
 * read: about to sign), `signed-unjournaled` (signed in memory, not journaled), `signed` (the
 * attempt journaled and fsynced, not sent); then `sent` (a send returned) and `resolved`.
 */
export type LiveProbePoint = 'created' | 'swapped' | 'inspected' | 'built' | 'signed-unjournaled' | 'signed' | 'sent' | 'resolved';

export interface DriveContext {
  readonly rpc: LiveRpcPort;
  /** Batched status reads shared by every in-flight intent. */
  readonly statuses: StatusSource;
  readonly swap: SwapBuilderPort;
  readonly signer: Signer;
  readonly journal: IntentJournal;
  readonly clock: Clock;
  readonly settings: LiveSettings;
  readonly allowedPrograms: ReadonlySet<string>;
  /** Priority fee of each build (the intent's budget, or a percentile of recent fees). */
  readonly priorityFees: PriorityFeeSource;
  readonly log: Logger;
  readonly report: (r: ExecutionReport) => void;
  readonly probe?: (point: LiveProbePoint, intentId: string) => void;
  readonly signal: AbortSignal;
  /** Counts a chain read or send that failed and was retried or treated as "unknown" (never silent). */
  readonly count?: (what: LiveRetryKind, error: unknown) => void;
  /**
   * Intents whose outcome this process handed to the sink and the journal has not yet marked
   * reported, with when: an outcome the journal could not write is handed over from memory at once
   * (the engine opens the position and arms its exits, or frees the reservation), never a second
   * time, and its late writes carry the hand-over's time, so the journal's landing order
   * (`landed()`, which a restart replays) stays the order the engine applied the fills.
   */
  readonly handedOver: Map<string, UnixMs>;
}

/** What `count` counts. */
export type LiveRetryKind = 'read-retry' | 'send-error' | 'status-error' | 'height-error' | 'stale-status';

/**
 * Read errors that no retry can fix: an invariant breach, a parameter we built wrong, a key the
 * endpoint refuses, a client misconfiguration. An RPC error member or a 5xx is "unknown" (nodes
 * answer -32603 and friends transiently), so it is retried.
 */
const PERMANENT_READ_CODES: ReadonlySet<string> = new Set(['RPC_INVALID_PARAM', 'HTTP_AUTH_FAILED', 'HTTP_CLIENT_ERROR', 'HTTP_INVALID_OPTIONS']);

function isPermanent(e: unknown): boolean {
  return e instanceof ChainpilotError && (e.retry === 'fatal' || PERMANENT_READ_CODES.has(e.code));
}

/** Attempts of one chain read before the intent is left to start-up reconciliation (about 2 minutes at the backoff cap). */
export const READ_ATTEMPTS = 60;
/**
 * Longest wait between two attempts of a chain read (ms of the run clock): short, because a read
 * between build and sign spends the blockhash's life (about 60 s).
 */
export const READ_BACKOFF_CAP_MS = 2_000;

/** Longest wait between two tries of an intent whose journal write failed (ms of the run clock). */
export const JOURNAL_BACKOFF_CAP_MS = 5_000;

/**
 * Runs intent `id` to a terminal, reported outcome. Throws only on abort or an invariant breach.
 * A journal call that fails for want of a writable journal (`LIVE_JOURNAL_UNAVAILABLE`) never
 * abandons the intent: it is driven again from what the journal holds (or, while the journal cannot
 * be read, from the record kept in memory: remembered-journal.ts), after a capped backoff, until
 * the journal accepts its writes. A sent transaction is thereby re-broadcast and its status polled as before.
 */
export async function driveIntent(outer: DriveContext, id: string, created?: IntentRecord): Promise<void> {
  const memory: RememberedRecord = created ? { rec: created } : {};
  const ctx: DriveContext = { ...outer, journal: rememberedJournal(outer.journal, id, memory) };
  for (let failures = 0; ; failures++) {
    try {
      // a record just written needs no read: the create's, on the first pass only
      await driveFromJournal(ctx, id, failures === 0 ? created : undefined);
      return;
    } catch (e) {
      if (!isJournalUnavailable(e)) throw e;
      throwIfAborted(ctx.signal, `intent ${id}`);
      const waitMs = cappedBackoff(failures, ctx.settings.pollMs, JOURNAL_BACKOFF_CAP_MS);
      ctx.log.debug({ intentId: id, err: describeError(e), waitMs }, 'journal unavailable; driving the intent again after a backoff');
      await clockSleep(ctx.clock, waitMs, ctx.signal);
    }
  }
}

/**
 * One pass from what the journal (or, while it cannot be read, the record kept in memory) holds.
 * `written` is the record as this process just wrote it (the create's; then the signed attempt's):
 * the journal accepted exactly that, and only this drive writes the intent, so it is used instead of
 * reading the row back between the decision and the send.
 */
async function driveFromJournal(ctx: DriveContext, id: string, written: IntentRecord | undefined): Promise<void> {
  const { journal, clock } = ctx;
  let known = written;
  for (;;) {
    throwIfAborted(ctx.signal, `intent ${id}`);
    const rec = known ?? (await journal.get(id));
    known = undefined;
    if (!rec) throw new ChainpilotError('JOURNAL_NOT_FOUND', `intent ${id} vanished from the journal`, { retry: 'fatal', context: { intentId: id } });
    const now = clock.now();
    if (rec.done) {
      if (!rec.reported) await reportOutcome(ctx, rec);
      return;
    }
    switch (rec.state) {
      case 'NEW':
      case 'BUILT':
      case 'EXPIRED':
        known = await buildAndSign(ctx, rec, now);
        break;
      case 'SIGNED':
      case 'SENT':
        await confirm(ctx, rec);
        break;
      default:
        throw new ChainpilotError('JOURNAL_BAD_TRANSITION', `intent ${id} is in ${rec.state} but not done`, { retry: 'fatal', context: { intentId: id } });
    }
  }
}

/** Builds, inspects, signs and journals the next attempt; returns the record as journaled when it signed one. */
async function buildAndSign(ctx: DriveContext, rec: IntentRecord, now: UnixMs): Promise<IntentRecord | undefined> {
  const { intent } = rec;
  const n = rec.attempts.length;
  const last = rec.attempts.at(-1);
  const tooOldToRebuild = now - intent.createdAt > ctx.settings.maxRebuildAgeMs;
  if (rec.state === 'EXPIRED' && last && (n >= ctx.settings.maxAttempts || tooOldToRebuild)) {
    // No attempt left, or the decision is too old to act on (e.g. found after a long downtime).
    await settle(ctx, intent.id, { state: 'EXPIRED', signature: last.signature, final: true }, { type: 'expired', intentId: intent.id, at: now });
    return;
  }
  if (n === 0 && now - intent.createdAt > ctx.settings.maxIntentAgeMs) {
    // Only a first build can be stale; rebuilds after an expiry are bounded by maxAttempts.
    await ctx.journal.deny(
      intent.id,
      'LIVE_INTENT_STALE',
      `intent is ${now - intent.createdAt} ms old (maxIntentAgeMs ${ctx.settings.maxIntentAgeMs}); not built`,
      now,
    );
    return;
  }
  const slippageBps = slippageForAttempt(intent.slippageBps, n, ctx.settings);
  const built = await build(ctx, intent, slippageBps);
  if ('code' in built) {
    await ctx.journal.deny(intent.id, built.code, built.reason, ctx.clock.now());
    return;
  }
  ctx.probe?.('swapped', intent.id);
  const verdict = await inspectSwap(
    built,
    intent,
    ctx.signer.publicKey,
    ctx.rpc,
    {
      allowedPrograms: ctx.allowedPrograms,
      rentBudgetLamports: ctx.settings.rentBudgetLamports,
      mode: ctx.settings.inspection,
      minOut: minOutOf(intent, slippageBps), // a ramped rebuild accepts what its own slippage allows
    },
    ctx.signal,
  );
  throwIfAborted(ctx.signal, `inspecting intent ${intent.id}`); // stopping is not a verdict: reconcile later
  if (!verdict.ok) {
    ctx.log.warn({ intentId: intent.id, code: verdict.code, reason: verdict.reason }, 'swap rejected by inspection; not signed');
    await ctx.journal.deny(intent.id, verdict.code, verdict.reason, ctx.clock.now());
    return;
  }
  ctx.probe?.('inspected', intent.id);
  const height = await readUntilKnown(ctx, () => ctx.rpc.getBlockHeight({ commitment: 'processed', signal: ctx.signal }), 'reading the block height');
  // Nothing is journaled between the decision and the signed attempt: a crash before recordSigned
  // leaves the intent NEW (or EXPIRED), which is built afresh by the same rules (nothing was signed).
  ctx.probe?.('built', intent.id);
  const signed = ctx.signer.signWire(built.raw);
  ctx.probe?.('signed-unjournaled', intent.id);
  const attempt = {
    signature: signed.signature,
    txBase64: signed.base64,
    blockhash: verdict.blockhash,
    expiryBlockHeight: height + ctx.settings.blockhashValidityBlocks,
    slippageBps,
  };
  const signedAt = ctx.clock.now();
  try {
    await ctx.journal.recordSigned(intent.id, attempt, signedAt);
  } catch (e) {
    if (!isChainpilotError(e, 'JOURNAL_DUPLICATE_SIGNATURE')) throw e;
    // Another decision already owns these exact bytes: never send them for this one. Wait for a
    // newer blockhash and build again (the intent stays as it was, nothing of this one was sent).
    ctx.log.info({ intentId: intent.id, signature: signed.signature }, 'swap service built bytes another intent owns; rebuilding');
    await clockSleep(ctx.clock, ctx.settings.pollMs, ctx.signal);
    return undefined;
  }
  ctx.log.info({ intentId: intent.id, signature: signed.signature, attempt: n, slippageBps }, 'swap signed and journaled');
  ctx.probe?.('signed', intent.id);
  return withSignedAttempt(rec, attempt, signedAt);
}

async function build(ctx: DriveContext, intent: OrderIntent, slippageBps: number): Promise<BuiltSwap | { code: 'LIVE_BUILD_FAILED'; reason: string }> {
  // Once the request below is on its way (after this turn's microtasks), derive the accounts
  // inspection will need while the swap service works, not between the build and the send.
  setImmediate(warmAccounts, ctx, intent);
  const buy = intent.side === 'buy';
  const priorityFeeLamports = await ctx.priorityFees.feeFor(intent.priorityFeeLamports, ctx.signal);
  const req = {
    wallet: ctx.signer.address,
    from: buy ? WSOL_MINT : intent.mint,
    to: buy ? intent.mint : WSOL_MINT,
    amount: intent.side === 'buy' ? lamportsToSol(intent.spendLamports) : fromRaw(intent.sellRaw, intent.decimals),
    slippagePct: slippageBps / 100,
    priorityFeeSol: lamportsToSol(priorityFeeLamports),
  };
  let lastError = '';
  for (let attempt = 0; attempt < ctx.settings.buildTries; attempt++) {
    try {
      return await ctx.swap.buildSwap(req, { signal: ctx.signal });
    } catch (e) {
      throwIfAborted(ctx.signal, `building intent ${intent.id}`);
      lastError = describeError(e);
      const retryable = e instanceof ChainpilotError && e.retry === 'retryable';
      if (!retryable) break;
      await clockSleep(ctx.clock, ctx.settings.pollMs * (attempt + 1), ctx.signal);
    }
  }
  return { code: 'LIVE_BUILD_FAILED', reason: `swap service could not build the swap: ${lastError}` };
}

/** swap-accounts.ts's warm-up; a mint it cannot derive for is inspection's to refuse (logged here, judged there). */
function warmAccounts(ctx: DriveContext, intent: OrderIntent): void {
  try {
    warmSwapAccounts(intent, ctx.signer.address);
  } catch (e) {
    ctx.log.debug({ intentId: intent.id, err: describeError(e) }, 'associated addresses not derived ahead of inspection');
  }
}

async function confirm(ctx: DriveContext, rec: IntentRecord): Promise<void> {
  const { intent } = rec;
  const attempt = rec.attempts.at(-1);
  if (!attempt) throw new ChainpilotError('JOURNAL_CORRUPT', `intent ${intent.id} is ${rec.state} without an attempt`, { retry: 'fatal' });
  let sent = rec.state === 'SENT';
  const outcome = await confirmAttempt({
    rpc: ctx.rpc,
    statuses: ctx.statuses,
    clock: ctx.clock,
    signature: attempt.signature,
    txBase64: attempt.txBase64,
    expiryBlockHeight: attempt.expiryBlockHeight,
    settings: ctx.settings,
    ...(ctx.count ? { onReadError: ctx.count } : {}),
    afterSend: () => ctx.probe?.('sent', intent.id),
    onFirstSend: async () => {
      try {
        if (!sent) await ctx.journal.markSent(intent.id, attempt.signature, ctx.clock.now());
        sent = true;
      } catch (e) {
        // SIGNED and SENT are confirmed alike (SIGNED → LANDED is allowed): keep polling the status;
        // the outcome's write is the one the intent waits for.
        if (!isJournalUnavailable(e)) throw e;
      }
    },
    signal: ctx.signal,
  });
  if (outcome.kind === 'expired') {
    const final = attempt.n + 1 >= ctx.settings.maxAttempts;
    ctx.log.info({ intentId: intent.id, signature: attempt.signature, final }, 'transaction expired unseen by the chain');
    const expiredAt = ctx.clock.now();
    // a rebuild waits for the journal (nothing of it is on its way); a final expiry is handed over at once
    await settle(
      ctx,
      intent.id,
      { state: 'EXPIRED', signature: attempt.signature, final },
      final ? { type: 'expired', intentId: intent.id, at: expiredAt } : undefined,
    );
    return;
  }
  const tx = await readUntilKnown(
    ctx,
    async () => {
      const t = await ctx.rpc.getTransaction(attempt.signature, { commitment: ctx.settings.commitment, maxSupportedTransactionVersion: 0, signal: ctx.signal });
      if (!t?.meta) throw new ChainpilotError('LIVE_FAILED_ON_CHAIN', 'transaction meta not yet available', { retry: 'retryable' });
      return { ...t, meta: t.meta };
    },
    `reading transaction ${attempt.signature}`,
  );
  const at = (tx.blockTime === null ? ctx.clock.now() : tx.blockTime * 1000) as UnixMs;
  // The slot the status read that decided the outcome reports (getSignatureStatuses' `slot`): the journal keeps it as the landing's slot.
  // A slot that is not a non-negative integer (a broken node's answer) is not kept.
  const landedSlot = Number.isSafeInteger(outcome.status.slot) && outcome.status.slot >= 0 ? outcome.status.slot : undefined;
  const now = ctx.clock.now();
  if (outcome.kind === 'failed') {
    const code = 'LIVE_FAILED_ON_CHAIN';
    const reason = `transaction failed on chain: ${JSON.stringify(outcome.status.err)}`;
    const feeLamports = lamports(tx.meta.fee);
    await settle(
      ctx,
      intent.id,
      { state: 'FAILED_ON_CHAIN', signature: attempt.signature, code, reason, feeLamports, landedSlot },
      { type: 'failed', intentId: intent.id, at: now, code, reason, feeLamports },
    );
  } else {
    const fill = readFill(intent, tx.meta, ctx.signer.address, attempt.signature, at);
    await settle(
      ctx,
      intent.id,
      { state: 'LANDED', signature: attempt.signature, fill, landedSlot },
      { type: 'filled', intentId: intent.id, at: now, fill, strategyId: intent.strategyId },
    );
  }
  ctx.probe?.('resolved', intent.id);
}

/**
 * Journals an intent's resolution. When the journal cannot write it, the outcome `early` (a terminal
 * one) is handed to the sink from memory before the error goes on to the retry: the engine must not
 * wait for the disk to learn that a buy landed (its exits) or a sell did (its tokens).
 */
async function settle(ctx: DriveContext, intentId: string, resolution: Resolution, early: ExecutionReport | undefined): Promise<void> {
  try {
    await ctx.journal.resolve(intentId, resolution, ctx.handedOver.get(intentId) ?? ctx.clock.now());
  } catch (e) {
    if (early !== undefined && isJournalUnavailable(e) && !ctx.handedOver.has(intentId)) {
      ctx.handedOver.set(intentId, early.at);
      ctx.log.warn({ intentId, outcome: early.type }, 'outcome handed over from memory; its journal write is retried');
      ctx.report(early);
    }
    throw e;
  }
}

/** Hands the journaled terminal outcome to the sink (unless handed over already), then marks it reported. */
async function reportOutcome(ctx: DriveContext, rec: IntentRecord): Promise<void> {
  const at = ctx.clock.now();
  const intentId = rec.intent.id;
  const handedAt = ctx.handedOver.get(intentId);
  if (handedAt !== undefined) {
    await ctx.journal.markReported(intentId, handedAt);
    ctx.handedOver.delete(intentId);
    return;
  }
  // records of these states always carry a code; a row without one (older or damaged) still reports the state's own code
  const code = rec.code ?? (rec.state === 'FAILED_ON_CHAIN' ? 'LIVE_FAILED_ON_CHAIN' : 'LIVE_INVALID_INTENT');
  const reason = rec.reason ?? '';
  if (rec.state === 'LANDED' && rec.fill) ctx.report({ type: 'filled', intentId, at, fill: rec.fill, strategyId: rec.intent.strategyId });
  else if (rec.state === 'FAILED_ON_CHAIN')
    ctx.report({ type: 'failed', intentId, at, code, reason, feeLamports: lamports(rec.feeLamports ?? LAMPORTS_PER_SIGNATURE) });
  else if (rec.state === 'DENIED') ctx.report({ type: 'rejected', intentId, at, code, reason });
  else ctx.report({ type: 'expired', intentId, at });
  ctx.handedOver.set(intentId, at);
  await ctx.journal.markReported(intentId, at);
  ctx.handedOver.delete(intentId);
}

/**
 * Repeats a read until it answers: an RPC error is "unknown", so the read is retried, never
 * guessed. Bounded and classified: a permanent error (see PERMANENT_READ_CODES) stops at once; any other
 * backs off (doubling from `pollMs`, capped) and is counted; after READ_ATTEMPTS the intent is
 * left to start-up reconciliation with LIVE_CHAIN_READ_FAILED.
 */
export async function readUntilKnown<T>(
  ctx: Pick<DriveContext, 'clock' | 'settings' | 'signal' | 'log' | 'count'>,
  read: () => Promise<T>,
  what = 'reading chain state',
): Promise<T> {
  let last: unknown;
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    try {
      return await read();
    } catch (e) {
      throwIfAborted(ctx.signal, what);
      if (isPermanent(e)) throw e;
      last = e;
      ctx.count?.('read-retry', e);
      const waitMs = cappedBackoff(attempt, ctx.settings.pollMs, READ_BACKOFF_CAP_MS);
      ctx.log[attempt === 0 ? 'warn' : 'debug']({ err: describeError(e), attempt: attempt + 1, waitMs }, `${what} failed; retrying`);
      await clockSleep(ctx.clock, waitMs, ctx.signal);
    }
  }
  throw new ChainpilotError(
    'LIVE_CHAIN_READ_FAILED',
    `${what} failed ${READ_ATTEMPTS} times (last: ${describeError(last)}); the intent is left to start-up reconciliation`,
    { retry: 'retryable', cause: last },
  );
}
