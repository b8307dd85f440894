/**
 * Notification channels: a webhook (JSON POST signed with HMAC-SHA256 over the exact body, an
 * idempotency key per event) and Telegram (Bot API `sendMessage`). A send either resolves or
 * throws a {@link SendError} that says whether a retry can help: 5xx, 429 and network errors
 * (timeouts included) can; other 4xx cannot. Errors never carry the URL (a Telegram URL holds
 * the bot token; a webhook URL may hold a key).
 */
import { createHmac } from 'node:crypto';
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
  send(n: Notification): Promise<void>;
}

/** Header carrying `sha256=<hex HMAC-SHA256 of the raw body with the shared secret>`. */
export const SIGNATURE_HEADER = 'x-chainpilot-signature';

/** The receiver's check: recompute the HMAC over the raw body bytes. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

async function post(what: string, url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
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

export function webhookChannel(c: WebhookConfig): Channel {
  return {
    name: 'webhook',
    retries: c.retries,
    retryBaseMs: c.retryBase,
    retryMaxMs: c.retryMax,
    async send(n) {
      const body = JSON.stringify({
        id: n.id,
        event: n.event,
        level: n.level,
        deployment: n.deployment,
        at: new Date(n.at).toISOString(),
        text: n.text,
        data: n.data,
      });
      await post('webhook', c.url, body, { [SIGNATURE_HEADER]: signBody(body, c.secret), 'idempotency-key': n.id, 'x-chainpilot-event': n.event }, c.timeout);
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
    async send(n) {
      const body = JSON.stringify({ chat_id: c.chatId, text: n.text, disable_notification: n.level === 'quiet', disable_web_page_preview: true });
      await post('telegram sendMessage', url, body, {}, c.timeout);
    },
  };
}
