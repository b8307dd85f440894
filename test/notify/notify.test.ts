import { timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { notifySchema, type NotifyConfig } from '../../src/config/index.js';
import { createRedactor, silentLogger, unixMs } from '../../src/core/index.js';
import type { DecisionEntry, DeploymentEvent, FeedHealth } from '../../src/runtime/deployment-handle.js';
import { createEventLog } from '../../src/service/event-log.js';
import type { Supervisor } from '../../src/service/daemon/supervisor.js';
import { signBody, SIGNATURE_HEADER } from '../../src/service/notify/channels.js';
import type { Draft } from '../../src/service/notify/messages.js';
import { createNotifier, type Notifier } from '../../src/service/notify/notifier.js';
import { createNotifyHub } from '../../src/service/notify/notify-hub.js';
import { loadNotifyFile } from '../../src/service/notify/notify-file.js';

const SECRET = 'webhook-shared-secret-0123456789';
const BOT_TOKEN = '123456:telegram-bot-token-abcdef';
const API_KEY = 'remote-api-key-zyxwvu987654';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A local HTTP server answering with `statuses` in turn (then 200); `hang` never answers. */
async function receiver(statuses: (number | 'hang')[] = []): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      const s = statuses.shift() ?? 200;
      if (s === 'hang') return;
      res.writeHead(s, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  const port = a && typeof a === 'object' ? a.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const config = (o: {
  webhook?: string;
  telegram?: string;
  queueSize?: number;
  timeout?: number;
  retries?: number;
  events?: Record<string, string>;
}): NotifyConfig =>
  notifySchema.parse({
    ...(o.webhook
      ? { webhook: { url: `${o.webhook}/hook`, secret: SECRET, timeout: o.timeout ?? 2_000, retries: o.retries ?? 3, retryBase: 10, retryMax: 50 } }
      : {}),
    ...(o.telegram
      ? {
          telegram: {
            botToken: BOT_TOKEN,
            chatId: 4242,
            baseUrl: o.telegram,
            timeout: o.timeout ?? 2_000,
            retries: o.retries ?? 3,
            retryBase: 10,
            retryMax: 50,
          },
        }
      : {}),
    ...(o.queueSize ? { queueSize: o.queueSize } : {}),
    ...(o.events ? { events: o.events } : {}),
  });

const redactor = (): ReturnType<typeof createRedactor> => createRedactor([SECRET, BOT_TOKEN, API_KEY]);
const notifier = (c: NotifyConfig): Notifier => {
  const n = createNotifier({ config: c, idPrefix: 'boot1', redactor: redactor(), log: silentLogger(), maxChannelBackoffMs: 50 });
  cleanups.push(() => n.close(0));
  return n;
};
const fillDraft = (key = 'd1'): Draft => ({
  key,
  event: 'fills',
  deployment: 'paper-a',
  at: Date.UTC(2026, 10, 23, 12),
  text: `paper-a: bought HFeg…diRT for 0.1 SOL (leaked ${API_KEY}?)`,
  data: { mint: 'HFegXXXXXXXXXXXXdiRT', note: API_KEY },
});

describe('webhook notifications', () => {
  it('posts JSON signed with HMAC-SHA256 over the body, with an idempotency key, that the receiver verifies', async () => {
    const r = await receiver();
    cleanups.push(() => r.close());
    const n = notifier(config({ webhook: r.url }));
    n.notify(fillDraft());
    await until('delivery', () => n.stats()['webhook']?.sent === 1);
    const got = r.received[0] as Received;
    expect(got.path).toBe('/hook');
    const body = JSON.parse(got.body) as Record<string, unknown>;
    expect(body).toMatchObject({ id: 'boot1-paper-a-d1', event: 'fills', level: 'on', deployment: 'paper-a', at: '2026-11-23T12:00:00.000Z' });
    expect(got.headers['idempotency-key']).toBe(body['id']);
    // The receiver's check: HMAC of the raw body with the shared secret, compared in constant time.
    const sig = Buffer.from(String(got.headers[SIGNATURE_HEADER]));
    expect(timingSafeEqual(sig, Buffer.from(signBody(got.body, SECRET)))).toBe(true);
    // A body changed in transit, or signed with another secret, does not verify.
    expect(signBody(`${got.body} `, SECRET)).not.toBe(String(got.headers[SIGNATURE_HEADER]));
    expect(signBody(got.body, `${SECRET}x`)).not.toBe(String(got.headers[SIGNATURE_HEADER]));
    for (const secret of [SECRET, BOT_TOKEN, API_KEY]) expect(got.body).not.toContain(secret);
  });

  it('retries a 500 with the same idempotency key, and does not retry a 400', async () => {
    const r = await receiver([500, 500, 200, 400]);
    cleanups.push(() => r.close());
    const n = notifier(config({ webhook: r.url }));
    n.notify(fillDraft('d1'));
    await until('delivery after two 500s', () => n.stats()['webhook']?.sent === 1);
    expect(r.received.map((x) => x.headers['idempotency-key'])).toEqual(['boot1-paper-a-d1', 'boot1-paper-a-d1', 'boot1-paper-a-d1']);
    expect(n.stats()['webhook']?.retries).toBe(2);
    n.notify(fillDraft('d2'));
    await until('the 400 to be given up', () => n.stats()['webhook']?.failed === 1);
    expect(r.received).toHaveLength(4);
    expect(n.stats()['webhook']?.retries).toBe(2);
  });

  it('drops and counts what does not fit the queue while the receiver never answers, without blocking the caller', async () => {
    const r = await receiver(Array.from({ length: 50 }, () => 'hang' as const));
    cleanups.push(() => r.close());
    const n = notifier(config({ webhook: r.url, queueSize: 3, timeout: 300, retries: 0 }));
    const t0 = performance.now();
    for (let i = 0; i < 10; i++) n.notify(fillDraft(`d${i}`));
    expect(performance.now() - t0).toBeLessThan(50);
    expect(n.stats()['webhook']).toMatchObject({ dropped: 7, queued: 3 });
    await until('the first timeout', () => n.stats()['webhook']?.failed === 1);
    const registry = new Registry();
    const hub = createNotifyHub({
      daemonConfig: config({ webhook: r.url, queueSize: 1, timeout: 300, retries: 0 }),
      idPrefix: 'b',
      redactor: redactor(),
      log: silentLogger(),
    });
    cleanups.push(() => hub.close(0));
    hub.metrics(registry);
    expect(await registry.metrics()).toContain('chainpilot_notify_dropped_total{scope="daemon",channel="webhook"} 0');
  });
});

describe('Telegram notifications', () => {
  it('calls sendMessage on the configured base URL, quiet events without sound, and keeps every secret out of the message', async () => {
    const r = await receiver();
    cleanups.push(() => r.close());
    const n = notifier(config({ telegram: r.url, events: { fills: 'quiet' } }));
    n.notify(fillDraft());
    await until('delivery', () => n.stats()['telegram']?.sent === 1);
    const got = r.received[0] as Received;
    expect(got.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    const body = JSON.parse(got.body) as Record<string, unknown>;
    expect(body).toMatchObject({ chat_id: '4242', disable_notification: true });
    expect(body['text']).toMatch(/^paper-a: bought HFeg…diRT for 0\.1 SOL/);
    for (const secret of [SECRET, BOT_TOKEN, API_KEY]) expect(got.body).not.toContain(secret);
  });
});

describe('the daemon notification hub', () => {
  it('turns fills, the kill switch and feed loss and return into readable messages, and sends nothing for an event set to off or a deployment without notify', async () => {
    const r = await receiver();
    cleanups.push(() => r.close());
    const decisions = createEventLog<DecisionEntry>(100, (e) => {
      throw e;
    });
    const events = createEventLog<DeploymentEvent>(100, (e) => {
      throw e;
    });
    const supervisor = { list: () => [], get: () => undefined } as unknown as Supervisor;
    const hub = createNotifyHub({
      deploymentConfig: (name) => (name === 'paper-a' ? config({ webhook: r.url, events: { intentFailures: 'off' } }) : undefined),
      idPrefix: 'boot2',
      redactor: redactor(),
      log: silentLogger(),
    });
    cleanups.push(() => hub.close(0));
    hub.attach({ supervisor, decisions, events });
    const mint = 'HFegq1wTnXW2tN1s8vQk9ZcYp3u7o5RdiRT';
    decisions.append('paper-a', {
      kind: 'fill',
      at: 1,
      intentId: 'i1',
      strategyId: 'momentum',
      side: 'sell',
      mint,
      solAmount: '294000000',
      tokenAmount: '1872783461086',
      feeLamports: '5000',
      price: '0.00000015',
    });
    decisions.append('paper-a', {
      kind: 'unfilled',
      at: 2,
      intentId: 'i2',
      strategyId: 'momentum',
      outcome: 'failed',
      code: 'PAPER_SLIPPAGE_EXCEEDED',
      reason: 'slippage',
      feeLamports: '0',
    });
    decisions.append('paper-b', {
      kind: 'fill',
      at: 3,
      intentId: 'i3',
      strategyId: 'x',
      side: 'buy',
      mint,
      solAmount: '1',
      tokenAmount: '1',
      feeLamports: '0',
      price: '1',
    });
    events.append('paper-a', { type: 'state', at: unixMs(4), state: 'killed' });
    const feed = (connected: boolean): FeedHealth => ({
      state: connected ? 'open' : 'reconnecting',
      connected,
      lastFrameAt: undefined,
      framesPerSec: 0,
      frames: 0,
      gaps: 0,
      reconnects: 1,
      rejected: 0,
      rejectedByFamily: {},
      dropped: 0,
      backfillFailures: 0,
    });
    events.append('paper-a', { type: 'feed', at: unixMs(5), health: feed(true) });
    events.append('paper-a', { type: 'feed', at: unixMs(6), health: feed(true) });
    events.append('paper-a', { type: 'feed', at: unixMs(7), health: feed(false) });
    events.append('paper-a', { type: 'feed', at: unixMs(8), health: feed(true) });
    await until('four messages', () => r.received.length === 4);
    const texts = r.received.map((x) => JSON.parse(x.body) as { event: string; text: string });
    expect(texts.map((t) => t.event)).toEqual(['fills', 'killSwitch', 'feed', 'feed']);
    expect(texts[0]?.text).toBe('paper-a: sold HFeg…diRT for 0.294 SOL (1872783461086 raw tokens, fee 0.000005 SOL) by momentum');
    expect(texts[1]?.text).toMatch(/kill switch ON/);
    expect(texts[2]?.text).toMatch(/market feed lost/);
    expect(texts[3]?.text).toMatch(/market feed back/);
  });
});

describe('the daemon notification file', () => {
  it('takes secrets only from the environment and names the field otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-notify-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'notify.yaml');
    writeFileSync(file, 'notify:\n  telegram:\n    botToken: ${TG_TOKEN}\n    chatId: 1\n  events: { fills: quiet }\n');
    const ok = loadNotifyFile(file, { TG_TOKEN: BOT_TOKEN });
    expect(ok.config.telegram?.botToken).toBe(BOT_TOKEN);
    expect(ok.config.events.fills).toBe('quiet');
    expect(ok.secrets).toEqual([BOT_TOKEN]);
    expect(() => loadNotifyFile(file, {})).toThrow(/notify\.telegram\.botToken: environment variable TG_TOKEN is not set/);
    writeFileSync(file, `notify:\n  telegram:\n    botToken: "${BOT_TOKEN}"\n    chatId: 1\n`);
    expect(() => loadNotifyFile(file, {})).toThrow(/notify\.telegram\.botToken: write \$\{ENV_NAME\}/);
  });
});
