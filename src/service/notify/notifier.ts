/**
 * A notifier for one `notify:` block: each configured channel gets a bounded queue and one worker.
 * `notify` never waits and never throws: it applies the event's level, redacts the text and
 * enqueues; a full queue drops the notification and counts it. The worker sends one at a time,
 * retries with capped exponential backoff on retryable failures (5xx, 429, network, timeout), not
 * on other 4xx, and after a notification finally fails it backs the whole channel off (doubling,
 * up to 5 minutes) instead of hammering a receiver that is down.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { NotifyConfig } from '../../config/index.js';
import {
  cappedBackoff,
  createLifecycle,
  describeError,
  lifecycleMembers,
  systemClock,
  type Clock,
  type Lifecycle,
  type Logger,
  type Redactor,
} from '../../core/index.js';
import { SendError, telegramChannel, webhookChannel, type Channel } from './channels.js';
import type { Draft, Notification } from './messages.js';

export interface ChannelStats {
  readonly sent: number;
  readonly failed: number;
  readonly dropped: number;
  readonly retries: number;
  readonly queued: number;
  /** Consecutive notifications that finally failed (0 after a success). */
  readonly failingStreak: number;
}

/** Counters by channel name. */
export type NotifierReport = Readonly<Record<string, ChannelStats>>;

/**
 * A {@link Lifecycle} built running. `stop({ drainMs })` (default 5 s) waits at most `drainMs` for
 * queued notifications to go out, then stops the workers; its report is the final counters
 * (`queued` says what was left unsent).
 */
export interface Notifier extends Lifecycle<NotifierReport> {
  /** Enqueues `draft` on every channel (never blocks, never throws). */
  notify(draft: Draft): void;
  stats(): NotifierReport;
}

export interface NotifierOptions {
  readonly config: NotifyConfig;
  /** Prefix of every idempotency key (the daemon run's boot id: sequences restart per run). */
  readonly idPrefix: string;
  readonly redactor: Redactor;
  readonly log: Logger;
  readonly now?: () => number;
  /** The clock a stop's deadline runs on (default: the system clock). */
  readonly clock?: Clock;
  /** Cap of a failing channel's back-off (default 5 minutes). */
  readonly maxChannelBackoffMs?: number;
  /** Channels to use instead of those in `config` (tests). */
  readonly channels?: readonly Channel[];
}

export function createNotifier(o: NotifierOptions): Notifier {
  const now = o.now ?? Date.now;
  const stop = new AbortController();
  const channels = o.channels ?? [
    ...(o.config.webhook ? [webhookChannel(o.config.webhook, now)] : []),
    ...(o.config.telegram ? [telegramChannel(o.config.telegram)] : []),
  ];
  const workers = channels.map((ch) => {
    const queue: Notification[] = [];
    const st = { sent: 0, failed: 0, dropped: 0, retries: 0, failingStreak: 0 };
    let pausedUntil = 0;
    let running: Promise<void> | undefined;
    const wait = async (ms: number): Promise<void> => {
      if (ms > 0) await sleep(ms, undefined, { signal: stop.signal }).catch(() => undefined);
    };
    const deliver = async (n: Notification): Promise<boolean> => {
      for (let attempt = 0; ; attempt++) {
        try {
          await ch.send(n, stop.signal);
          return true;
        } catch (e) {
          const retryable = e instanceof SendError ? e.retryable : true;
          if (!retryable || attempt >= ch.retries || stop.signal.aborted) {
            o.log.warn({ channel: ch.name, event: n.event, deployment: n.deployment, err: o.redactor.redact(describeError(e)) }, 'notification not delivered');
            return false;
          }
          st.retries++;
          await wait(cappedBackoff(attempt, ch.retryBaseMs, ch.retryMaxMs));
        }
      }
    };
    const pump = async (): Promise<void> => {
      while (queue.length > 0 && !stop.signal.aborted) {
        await wait(pausedUntil - now());
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal can abort during the await above
        if (stop.signal.aborted) break;
        const n = queue[0] as Notification;
        const ok = await deliver(n);
        queue.shift();
        if (ok) {
          st.sent++;
          st.failingStreak = 0;
        } else {
          st.failed++;
          st.failingStreak++;
          pausedUntil = now() + cappedBackoff(st.failingStreak - 1, Math.max(ch.retryBaseMs, 1_000), o.maxChannelBackoffMs ?? 300_000);
        }
      }
    };
    return {
      name: ch.name,
      push(n: Notification) {
        if (queue.length >= o.config.queueSize) {
          st.dropped++;
          return;
        }
        queue.push(n);
        running ??= pump().finally(() => {
          running = undefined;
        });
      },
      stats: (): ChannelStats => ({ ...st, queued: queue.length }),
      idle: () => running ?? Promise.resolve(),
    };
  });

  const stats = (): NotifierReport => Object.fromEntries(workers.map((w) => [w.name, w.stats()]));
  const life = createLifecycle(
    {
      name: 'notifier',
      drain: async () => {
        await Promise.all(workers.map((w) => w.idle()));
      },
      halt: async () => {
        stop.abort();
        await Promise.all(workers.map((w) => w.idle()));
      },
      report: stats,
    },
    { log: o.log, clock: o.clock ?? systemClock(), defaultDrainMs: 5_000, running: true },
  );
  return {
    ...lifecycleMembers(life),
    notify(d) {
      const level = o.config.events[d.event];
      if (level === 'off' || stop.signal.aborted) return;
      const { key, ...rest } = d;
      const n: Notification = {
        ...rest,
        id: `${o.idPrefix}-${d.deployment}-${key}`,
        level,
        text: o.redactor.redact(d.text),
        data: o.redactor.redactValue(d.data),
      };
      for (const w of workers) w.push(n);
    },
    stats,
  };
}
