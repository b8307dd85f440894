import { timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { notifySchema, type NotifyConfig } from '../../src/config/index.js';
import { createRedactor, silentLogger, unixMs } from '../../src/core/index.js';
import type { DecisionEntry, DeploymentEvent, FeedHealth } from '../../src/runtime/handle/deployment-handle.js';
import { createEventLog } from '../../src/service/event-log.js';
import type { Supervisor } from '../../src/service/daemon/supervisor.js';
import { signBody, SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook, WEBHOOK_TOLERANCE_MS } from '../../src/service/notify/channels.js';
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

const cleanups: (() => Promise<unknown> | void)[] = [];
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
  cleanups.push(() => n.stop({ drainMs: 0 }));
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
  it('posts JSON signed with HMAC-SHA256 over a timestamp and the body, with an idempotency key, that the receiver verifies and refuses when replayed past the tolerance', async () => {
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
    // The receiver's check: HMAC of "<timestamp>.<raw body>" with the shared secret, compared in constant time.
    const ts = Number(got.headers[TIMESTAMP_HEADER]);
    expect(Math.abs(ts * 1000 - Date.now())).toBeLessThan(60_000);
    const sig = Buffer.from(String(got.headers[SIGNATURE_HEADER]));
    expect(timingSafeEqual(sig, Buffer.from(signBody(got.body, SECRET, ts)))).toBe(true);
    const check = (o: { body?: string; secret?: string; timestamp?: string; nowMs?: number }) =>
      verifyWebhook({
        body: o.body ?? got.body,
        signature: String(got.headers[SIGNATURE_HEADER]),
        timestamp: o.timestamp ?? String(ts),
        secret: o.secret ?? SECRET,
        nowMs: o.nowMs ?? ts * 1000,
      });
    expect(check({})).toBe('ok');
    // A body changed in transit, signed with another secret, or with its timestamp moved, does not verify.
    expect(check({ body: `${got.body} ` })).toBe('bad-signature');
    expect(check({ secret: `${SECRET}x` })).toBe('bad-signature');
    expect(check({ timestamp: String(ts + 1) })).toBe('bad-signature');
    // The same request replayed past the tolerance is refused even without an idempotency store.
    expect(check({ nowMs: ts * 1000 + WEBHOOK_TOLERANCE_MS })).toBe('ok');
    expect(check({ nowMs: ts * 1000 + WEBHOOK_TOLERANCE_MS + 1_000 })).toBe('stale');
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
    cleanups.push(() => hub.stop({ drainMs: 0 }));
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
  it('turns fills, the kill switch with its reason, feed loss (disconnected or stale) and return, and a halted strategy into readable messages, and sends nothing for an event set to off or a deployment without notify', async () => {
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
    cleanups.push(() => hub.stop({ drainMs: 0 }));
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
    events.append('paper-a', { type: 'state', at: unixMs(4), state: 'killed', cause: { code: 'RISK_KILL_SWITCH', message: 'kill switch on: rug-wave' } });
    const feed = (connected: boolean, state: FeedHealth['state'] = connected ? 'open' : 'reconnecting'): FeedHealth => ({
      state,
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
    // Open but silent past feed.staleAfter is a loss too, and its end a return.
    events.append('paper-a', { type: 'feed', at: unixMs(9), health: feed(true, 'stale') });
    events.append('paper-a', { type: 'feed', at: unixMs(10), health: feed(true) });
    events.append('paper-a', {
      type: 'state',
      at: unixMs(11),
      state: 'halted',
      cause: { code: 'ENGINE_STRATEGY_HALTED', message: 'strategy graduation-sniper halted after 10 errors' },
    });
    await until('seven messages', () => r.received.length === 7);
    const sent = r.received.map((x) => JSON.parse(x.body) as { event: string; text: string; data: Record<string, unknown> });
    expect(sent.map((t) => t.event)).toEqual(['fills', 'killSwitch', 'feed', 'feed', 'feed', 'feed', 'fatal']);
    expect(sent[0]?.text).toBe('paper-a: sold HFeg…diRT for 0.294 SOL (1872783461086 raw tokens, fee 0.000005 SOL) by momentum');
    expect(sent[0]?.data['runAt']).toBe(1);
    expect(sent[1]?.text).toBe('paper-a: kill switch ON: no new buys until unkilled (reason: rug-wave)');
    expect(sent[1]?.data['reason']).toBe('rug-wave');
    expect(sent[2]?.text).toMatch(/market feed lost \(reconnecting\)/);
    expect(sent[3]?.text).toMatch(/market feed back/);
    expect(sent[4]?.text).toMatch(/market feed lost \(stale\)/);
    expect(sent[5]?.text).toMatch(/market feed back/);
    expect(sent[6]?.text).toBe('paper-a: degraded: ENGINE_STRATEGY_HALTED: strategy graduation-sniper halted after 10 errors');
  });
});

describe('the daily summary', () => {
  it("is sent once per deployment when its own risk day rolls over, for the day that ended, with the book's numbers", async () => {
    const r = await receiver();
    cleanups.push(() => r.close());
    let dayStartedAt = Date.UTC(2026, 10, 23, 4); // risk.dayBoundary 04:00 UTC
    const handle = {
      stats: () => ({
        summary: { equityLamports: 10_500_000_000n, realisedLamports: 500_000_000n, unrealisedLamports: 0n, fills: 4, openPositions: 1 },
        risk: { dayStartedAt, dailyLossLamports: 200_000_000n },
      }),
    };
    const supervisor = { list: () => [{ name: 'paper-a', handle }], get: () => undefined } as unknown as Supervisor;
    const hub = createNotifyHub({
      daemonConfig: config({ webhook: r.url }),
      idPrefix: 'boot3',
      redactor: redactor(),
      log: silentLogger(),
      dayCheckEveryMs: 3_600_000,
    });
    cleanups.push(() => hub.stop({ drainMs: 0 }));
    const logs = { decisions: createEventLog<DecisionEntry>(10, () => undefined), events: createEventLog<DeploymentEvent>(10, () => undefined) };
    hub.attach({ supervisor, ...logs });
    hub.checkDay();
    hub.checkDay();
    dayStartedAt += 86_400_000;
    hub.checkDay();
    hub.checkDay();
    await until('the summary', () => r.received.length === 1);
    const body = JSON.parse(r.received[0]!.body) as { id: string; event: string; text: string };
    expect(body.event).toBe('dailySummary');
    expect(body.id).toBe('boot3-paper-a-day-2026-11-23');
    expect(body.text).toBe(
      'paper-a: summary for 2026-11-23: book equity 10.5 SOL, realised +0.5 SOL, unrealised 0 SOL, 1 open positions; 4 fills since the run started; daily loss 0.2 SOL',
    );
    await hub.stop({ drainMs: 1_000 });
    expect(r.received).toHaveLength(1);
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

  it('reads the Telegram control allow-list of users, and names the field of a bad user id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-notify-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'notify.yaml');
    const yaml = (users: string) => `notify:\n  telegram:\n    botToken: \${TG_TOKEN}\n    chatId: "-100123"\n    control: true\n    allowUserIds: ${users}\n`;
    writeFileSync(file, yaml('["4242", "77"]'));
    expect(loadNotifyFile(file, { TG_TOKEN: BOT_TOKEN }).config.telegram?.allowUserIds).toEqual(['4242', '77']);
    writeFileSync(file, yaml('["-100123"]'));
    expect(() => loadNotifyFile(file, { TG_TOKEN: BOT_TOKEN })).toThrow(/notify\.telegram\.allowUserIds\.0: a Telegram user id/);
  });
});
