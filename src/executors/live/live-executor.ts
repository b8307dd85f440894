/**
 * The live executor: swap → inspect → sign → journal → send → confirm, with one decision never
 * landing twice, even across crashes (design.md §5). Spend caps are enforced here, independent of
 * strategy code and of the risk gate.
 */
import { setMaxListeners } from 'node:events';
import { PublicKey } from '@solana/web3.js';
import { ChainpilotError, describeError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { addLamports, lamports, type Lamports, type UnixMs } from '../../core/units.js';
import { amountInOf, type ExecutionReport, type ExecutionSink, type Executor, type OrderIntent } from '../../engine/execution-port.js';
import type { IntentJournal } from '../journal/journal.js';
import type { Signer } from '../signer/signer.js';
import { driveIntent, type DriveContext, type LiveProbePoint, type LiveRetryKind } from './drive-intent.js';
import { BASE_ALLOWED_PROGRAMS, LAMPORTS_PER_SIGNATURE } from './inspect.js';
import { resolveLiveSettings, type LiveSettings, type LiveSettingsInput } from './live-settings.js';
import type { LiveRpcPort, SwapBuilderPort } from './ports.js';
import { createPriorityFeeSource } from './priority-fee.js';
import { createStatusBatcher } from './status-batcher.js';

export interface LiveExecutorOptions {
  readonly rpc: LiveRpcPort;
  readonly swap: SwapBuilderPort;
  readonly signer: Signer;
  readonly journal: IntentJournal;
  readonly clock: Clock;
  readonly settings: LiveSettingsInput;
  readonly logger?: Logger;
  /** Background failures (abort aside) that leave an intent for start-up reconciliation. */
  readonly onError?: (error: unknown, intentId: string) => void;
  /** Test hook: called at named instants (crash tests kill the process there). */
  readonly probe?: (point: LiveProbePoint, intentId: string) => void;
}

export interface LiveExecutor extends Executor {
  readonly settings: LiveSettings;
  /** Chain reads and sends that failed and were retried or treated as unknown, by kind. */
  counters(): Readonly<Record<LiveRetryKind, number>>;
  /** Resolves when every intent currently in flight has settled (tests, benchmarks). */
  idle(): Promise<void>;
}

/** Creates the live executor. Nothing is sent before `start()` finished reconciling the journal. */
export function createLiveExecutor(options: LiveExecutorOptions): LiveExecutor {
  const settings = resolveLiveSettings(options.settings);
  const log = options.logger ?? silentLogger();
  const abort = new AbortController();
  // Every in-flight intent waits on this one stop signal (one listener per wait, removed when the
  // wait ends), so the listener count follows concurrency; Node's default warning at 10 is noise here.
  setMaxListeners(10_000, abort.signal);
  const inflight = new Map<string, Promise<void>>();
  let sink: ExecutionSink | undefined;
  let phase: 'idle' | 'starting' | 'running' | 'stopped' = 'idle';
  const counters: Record<LiveRetryKind, number> = { 'read-retry': 0, 'send-error': 0, 'status-error': 0, 'height-error': 0 };
  const count = (what: LiveRetryKind): void => {
    counters[what]++;
  };

  const ctx: DriveContext = {
    rpc: options.rpc,
    statuses: createStatusBatcher(options.rpc, () => count('status-error')),
    count,
    swap: options.swap,
    signer: options.signer,
    journal: options.journal,
    clock: options.clock,
    settings,
    allowedPrograms: new Set([...BASE_ALLOWED_PROGRAMS, ...settings.allowedPrograms]),
    priorityFees: createPriorityFeeSource(settings.priorityFee, options.rpc, options.clock, log),
    log,
    report: (r: ExecutionReport) => sink?.(r),
    ...(options.probe ? { probe: options.probe } : {}),
    signal: abort.signal,
  };

  const drive = (id: string): Promise<void> => {
    const running = inflight.get(id);
    if (running) return running;
    const p = driveIntent(ctx, id)
      .catch((e: unknown) => {
        if (abort.signal.aborted) return;
        log.error({ intentId: id, err: describeError(e) }, 'intent left unresolved; start-up reconciliation will resume it');
        options.onError?.(e, id);
      })
      .finally(() => inflight.delete(id));
    inflight.set(id, p);
    return p;
  };

  const reject = (intent: OrderIntent, code: ChainpilotError['code'], reason: string): void => {
    log.warn({ intentId: intent.id, code, reason }, 'intent rejected before anything was built');
    sink?.({ type: 'rejected', intentId: intent.id, at: options.clock.now(), code, reason });
  };

  return {
    settings,
    counters: () => ({ ...counters }),
    async start(s) {
      if (phase !== 'idle') throw new ChainpilotError('LIVE_NOT_STARTED', `start() called twice (executor is ${phase})`, { retry: 'not_retryable' });
      sink = s;
      phase = 'starting';
      const open = await options.journal.unresolved();
      log.info({ unresolved: open.length }, 'reconciling the journal before accepting intents');
      await Promise.all(open.map((r) => drive(r.intent.id)));
      phase = 'running';
    },

    async submit(intent) {
      if (phase !== 'running') {
        throw new ChainpilotError('LIVE_NOT_STARTED', `submit(${intent.id}) while the executor is ${phase}; await start() first`, {
          retry: 'not_retryable',
          context: { intentId: intent.id, phase },
        });
      }
      const invalid = validateIntent(intent);
      if (invalid) {
        reject(intent, 'LIVE_INVALID_INTENT', invalid);
        return;
      }
      const spendLamports = spendOf(intent);
      if (spendLamports > settings.maxTradeLamports) {
        reject(intent, 'LIVE_SPEND_CAP_TRADE', `intent may spend ${spendLamports} lamports; execution.maxTradeLamports is ${settings.maxTradeLamports}`);
        return;
      }
      const now = options.clock.now();
      const day = utcDay(now);
      const created = await options.journal.create(intent, { spendLamports, day, dailyCapLamports: settings.maxDayLamports }, now);
      if (created.kind === 'over_daily_cap') {
        reject(
          intent,
          'LIVE_SPEND_CAP_DAY',
          `day ${day} has ${created.spentTodayLamports} lamports committed; this intent's ${spendLamports} would pass execution.maxDayLamports ${settings.maxDayLamports}`,
        );
        return;
      }
      if (created.kind === 'exists') {
        // The same intent again (a queue re-delivery): idempotent, the journal drives or drove it.
        if (inflight.has(intent.id) || sameIntent(created.record.intent, intent)) return;
        // Another intent under an id another run or process journaled: report it, never leave it pending.
        reject(
          intent,
          'LIVE_INTENT_ID_REPEATED',
          `intent id ${intent.id} is already in the journal (${created.record.state}, created by another run or process); nothing was built`,
        );
        return;
      }
      sink?.({ type: 'accepted', intentId: intent.id, at: now });
      void drive(intent.id);
    },

    async stop(signal) {
      phase = 'stopped';
      const onAbort = (): void => abort.abort(signal?.reason);
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await Promise.allSettled([...inflight.values()]);
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },

    async idle() {
      while (inflight.size > 0) await Promise.allSettled([...inflight.values()]);
    },
  };
}

/** SOL that may leave the wallet for `intent`: amount (buys) plus base and priority fee budget. */
export function spendOf(intent: OrderIntent): Lamports {
  const fees = addLamports(intent.priorityFeeLamports, lamports(LAMPORTS_PER_SIGNATURE));
  return intent.side === 'buy' ? addLamports(intent.spendLamports, fees) : fees;
}

const DAY_MS = 86_400_000;
/** The last day `utcDay` formatted: [start, end) in ms and its text (a Date per intent otherwise). */
let lastDay = { start: 0, end: 0, text: '' };

/** UTC calendar day of `at`, `YYYY-MM-DD`: the key of the per-day cap. */
export function utcDay(at: UnixMs): string {
  if (at >= lastDay.start && at < lastDay.end) return lastDay.text;
  const text = new Date(at).toISOString().slice(0, 10);
  const start = Math.floor(at / DAY_MS) * DAY_MS;
  lastDay = { start, end: start + DAY_MS, text };
  return text;
}

/** True when `a` and `b` are the same decision (every field equal), not just the same id. */
function sameIntent(a: OrderIntent, b: OrderIntent): boolean {
  return (
    a.id === b.id &&
    a.strategyId === b.strategyId &&
    a.side === b.side &&
    a.mint === b.mint &&
    a.decimals === b.decimals &&
    amountInOf(a) === amountInOf(b) &&
    a.slippageBps === b.slippageBps &&
    a.priorityFeeLamports === b.priorityFeeLamports &&
    a.referencePrice === b.referencePrice &&
    a.createdAt === b.createdAt &&
    a.reason === b.reason
  );
}

/** Why `i` cannot be executed (a field out of range), or undefined when it is well-formed. */
export function validateIntent(i: OrderIntent): string | undefined {
  if (typeof i.id !== 'string' || i.id.length === 0 || i.id.length > 128) return 'id must be a non-empty string of at most 128 characters';
  const amount: unknown = i.side === 'buy' ? i.spendLamports : i.sellRaw;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- intents also arrive decoded from a journal or a queued job: the side is checked at run time
  if (i.side === 'buy' || i.side === 'sell') {
    if (typeof amount !== 'bigint' || amount <= 0n) return `${i.side === 'buy' ? 'spendLamports' : 'sellRaw'} must be a bigint > 0`;
  }
  if (typeof i.priorityFeeLamports !== 'bigint' || i.priorityFeeLamports < 0n) return 'priorityFeeLamports must be a bigint >= 0';
  if (!Number.isInteger(i.decimals) || i.decimals < 0 || i.decimals > 18) return 'decimals must be an integer from 0 to 18';
  if (!Number.isInteger(i.slippageBps) || i.slippageBps < 0 || i.slippageBps > 10_000) return 'slippageBps must be an integer from 0 to 10000';
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks a JavaScript caller's value at runtime
  if (i.side !== 'buy' && i.side !== 'sell') return "side must be 'buy' or 'sell'";
  try {
    new PublicKey(i.mint);
  } catch {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- the intent is checked at runtime: mint may not be a string
    return `mint ${String(i.mint)} is not a base58 address`;
  }
  return undefined;
}
