/**
 * Notification channels: a webhook (JSON POST signed with HMAC-SHA256 over a timestamp and the
 * exact body, an idempotency key per event) and Telegram (Bot API `sendMessage`). A send either resolves or
 * throws a {@link SendError} that says whether a retry can help: 5xx, 429 and network errors
 * (timeouts included) can; other 4xx cannot. Errors never carry the URL (a Telegram URL holds
 * the bot token; a webhook URL may hold a key).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NotifyConfig } from '../../config/index.js';
import type { Notification } from './messages.js';

export class SendError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface Channel {
  readonly name: 'webhook' | 'telegram';
  readonly retries: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** `signal`: the notifier's stop past its deadline; an attempt in flight is given up. */
  send(n: Notification, signal?: AbortSignal): Promise<void>;
}

/** Header carrying `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>" with the shared secret>`. */
export const SIGNATURE_HEADER = 'x-chainpilot-signature';
/** Header carrying the signing time in Unix seconds; it is part of the signed bytes. */
export const TIMESTAMP_HEADER = 'x-chainpilot-timestamp';
/** How far a receiver should accept a signing time from its own clock (either way): 5 minutes. */
export const WEBHOOK_TOLERANCE_MS = 300_000;

/** The signature of `body` sent at `timestampSec`: HMAC-SHA256 over `${timestampSec}.${body}`. */
export function signBody(body: string, secret: string, timestampSec: number): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestampSec}.${body}`).digest('hex')}`;
}

/**
 * The receiver's check: the signature matches the timestamp and the raw body (constant time), and
 * the timestamp is within `toleranceMs` of `nowMs`, so a captured request replayed later is refused
 * even by a receiver that keeps no idempotency keys.
 */
export function verifyWebhook(o: {
  readonly body: string;
  readonly signature: string | undefined;
  readonly timestamp: string | undefined;
  readonly secret: string;
  readonly nowMs: number;
  readonly toleranceMs?: number;
}): 'ok' | 'bad-signature' | 'stale' {
  const ts = o.timestamp !== undefined && /^\d{1,12}$/.test(o.timestamp) ? Number(o.timestamp) : undefined;
  if (ts === undefined) return 'bad-signature';
  const expected = Buffer.from(signBody(o.body, o.secret, ts));
  const got = Buffer.from(o.signature ?? '');
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) return 'bad-signature';
  return Math.abs(o.nowMs - ts * 1000) <= (o.toleranceMs ?? WEBHOOK_TOLERANCE_MS) ? 'ok' : 'stale';
}

async function post(what: string, url: string, body: string, headers: Record<string, string>, timeoutMs: number, stop?: AbortSignal): Promise<void> {
  let res: Response;
  const signal = stop ? AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]) : AbortSignal.timeout(timeoutMs);
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal });
  } catch (e) {
    if (stop?.aborted) throw new SendError(`${what}: given up, the notifier stopped`, false);
    const timeout = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
    throw new SendError(`${what}: ${timeout ? `no answer within ${timeoutMs} ms` : 'network error'}`, true);
  }
  // Drain the body so that the connection can be reused.
  await res.arrayBuffer().catch(() => undefined);
  if (res.ok) return;
  throw new SendError(`${what}: HTTP ${res.status}`, res.status >= 500 || res.status === 429, res.status);
}

type WebhookConfig = NonNullable<NotifyConfig['webhook']>;
type TelegramConfig = NonNullable<NotifyConfig['telegram']>;

/** `now`: the clock of the signing time (the daemon's; default the wall clock). Every attempt is signed afresh. */
export function webhookChannel(c: WebhookConfig, now: () => number = Date.now): Channel {
  return {
    name: 'webhook',
    retries: c.retries,
    retryBaseMs: c.retryBase,
    retryMaxMs: c.retryMax,
    async send(n, signal) {
      const body = JSON.stringify({
        id: n.id,
        event: n.event,
        level: n.level,
        deployment: n.deployment,
        at: new Date(n.at).toISOString(),
        text: n.text,
        data: n.data,
      });
      const ts = Math.floor(now() / 1000);
      await post(
        'webhook',
        c.url,
        body,
        { [SIGNATURE_HEADER]: signBody(body, c.secret, ts), [TIMESTAMP_HEADER]: String(ts), 'idempotency-key': n.id, 'x-chainpilot-event': n.event },
        c.timeout,
        signal,
      );
    },
  };
}

export function telegramChannel(c: TelegramConfig): Channel {
  const url = `${c.baseUrl.replace(/\/$/, '')}/bot${c.botToken}/sendMessage`;
  return {
    name: 'telegram',
    retries: c.retries,
    retryBaseMs: c.retryBase,
    retryMaxMs: c.retryMax,
    async send(n, signal) {
      const body = JSON.stringify({ chat_id: c.chatId, text: n.text, disable_notification: n.level === 'quiet', disable_web_page_preview: true });
      await post('telegram sendMessage', url, body, {}, c.timeout, signal);
    },
  };
}
