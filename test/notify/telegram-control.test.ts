/**
 * Telegram as a control channel, against a local fake of the Bot API on 127.0.0.1 (grammy's
 * `apiRoot` points at it): commands from the allow-listed chat are answered and act through the
 * same code as the control API; a chat not on the list gets nothing and changes nothing.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createRedactor, manualClock, silentLogger } from '../../src/core/index.js';
import { parseDeployment } from '../../src/config/index.js';
import type { DecisionEntry, DeploymentEvent } from '../../src/runtime/handle/deployment-handle.js';
import { createSupervisor } from '../../src/service/daemon/supervisor.js';
import { createEventLog } from '../../src/service/event-log.js';
import { createTelegramControl, type TelegramControl } from '../../src/service/notify/telegram-control.js';
import { fakeSupervisor, HELD_MINT, type FakeHandle } from '../daemon/fake-handle.js';
import { lifecycleConformance } from '../helpers/lifecycle-conformance.js';

const BOT_TOKEN = '123456:fake-bot-token-abcdefghij';
const OPERATOR = 4242;
const STRANGER = 999;
const OTHER_MINT = 'So11111111111111111111111111111111111111112';

interface Sent {
  chat_id: number | string;
  text: string;
}

/** The Bot API methods grammy's long polling uses: getMe, deleteWebhook, getUpdates, sendMessage. */
/** Who a fake message comes from: by default a private chat with the user whose id is the chat's. */
interface From {
  readonly chatType?: 'private' | 'group' | 'supergroup';
  readonly user?: number;
  readonly username?: string;
  /** Sent on behalf of this chat (an anonymous group admin). */
  readonly senderChat?: number;
}

async function fakeBotApi(): Promise<{ url: string; sent: Sent[]; say(chat: number, text: string, from?: From): void; close(): Promise<void> }> {
  const sent: Sent[] = [];
  const queue: unknown[] = [];
  let nextUpdate = 1;
  let nextMessage = 1;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      const answer = (result: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
      if (!m || m[1] !== BOT_TOKEN) return void res.writeHead(401).end(JSON.stringify({ ok: false, error_code: 401, description: 'Unauthorized' }));
      const params = (body ? JSON.parse(body) : {}) as Record<string, unknown>;
      switch (m[2]) {
        case 'getMe':
          return answer({ id: 1, is_bot: true, first_name: 'fake', username: 'fake_bot' });
        case 'deleteWebhook':
          return answer(true);
        case 'getUpdates': {
          const offset = Number(params['offset'] ?? 0);
          const reply = (): void => answer(queue.filter((u) => (u as { update_id: number }).update_id >= offset));
          // A short long-poll: answer at once when something waits, else after 50 ms.
          if (queue.some((u) => (u as { update_id: number }).update_id >= offset)) return reply();
          return void setTimeout(reply, 50);
        }
        case 'sendMessage':
          sent.push({ chat_id: params['chat_id'] as number, text: String(params['text']) });
          return answer({ message_id: nextMessage++, date: 0, chat: { id: params['chat_id'], type: 'private' }, text: params['text'] });
        default:
          return answer(true);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    sent,
    say(chat, text, from = {}) {
      const command = text.split(' ')[0] ?? '';
      queue.push({
        update_id: nextUpdate++,
        message: {
          message_id: nextMessage++,
          date: 0,
          chat: { id: chat, type: from.chatType ?? 'private' },
          from: { id: from.user ?? chat, is_bot: false, first_name: 'op', ...(from.username ? { username: from.username } : {}) },
          ...(from.senderChat !== undefined ? { sender_chat: { id: from.senderChat, type: 'supergroup', title: 'g' } } : {}),
          text,
          entities: [{ type: 'bot_command', offset: 0, length: command.length }],
        },
      });
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let control: TelegramControl | undefined;
let api: Awaited<ReturnType<typeof fakeBotApi>> | undefined;
afterEach(async () => {
  await control?.stop();
  await api?.close();
  control = undefined;
  api = undefined;
});

/** A supervisor with one fake deployment `alpha` and the Telegram control on a fake Bot API, started. */
async function startControl(allow: { chats: string[]; users?: string[] }): Promise<{ handles: Map<string, FakeHandle> }> {
  const clock = manualClock(1_700_000_000_000);
  const { sup: supervisor, byName: handles } = fakeSupervisor(clock);
  await supervisor.apply([
    { file: '/d/alpha.yaml', hash: 'h', loaded: parseDeployment('version: 1\nname: alpha\nstrategies:\n  - use: graduation-sniper\n', '/d/alpha.yaml') },
  ]);
  api = await fakeBotApi();
  control = createTelegramControl({
    botToken: BOT_TOKEN,
    apiRoot: api.url,
    allowChatIds: allow.chats,
    allowUserIds: allow.users,
    view: {
      supervisor,
      decisions: createEventLog<DecisionEntry>(10, () => undefined),
      events: createEventLog<DeploymentEvent>(10, () => undefined),
    },
    log: silentLogger(),
    redactor: createRedactor([BOT_TOKEN]),
  });
  await control.start();
  return { handles };
}

describe('Telegram control', () => {
  it('answers the allow-listed chat, acts through the control code (pause, kill with a reason, forceexit journaled as telegram), and ignores any other chat', async () => {
    const { handles } = await startControl({ chats: [String(OPERATOR)] });
    const [ctl, bot] = [control!, api!];
    const answerTo = async (text: string): Promise<string> => {
      const before = bot.sent.length;
      bot.say(OPERATOR, text);
      return (await until(`an answer to ${text}`, () => bot.sent[before])).text;
    };
    expect(await answerTo('/status')).toBe('alpha: running, equity 10 SOL, 0 open');
    expect(await answerTo('/balance')).toBe('alpha: equity 10 SOL\ntotal: 10 SOL');
    expect(await answerTo('/profit')).toMatch(/^alpha: realised 0 SOL, unrealised 0 SOL \(book\); 0 trades/);
    expect(await answerTo('/positions')).toBe('no open positions');
    expect(await answerTo('/daily')).toMatch(/^alpha: summary for \d{4}-\d\d-\d\d: book equity 10 SOL/);
    expect(await answerTo('/pause alpha maintenance')).toBe('alpha: pause done; now running');
    expect(handles.get('alpha')!.calls).toContain('pause:maintenance (telegram:user:4242)');
    expect(await answerTo('/kill alpha rug-wave')).toBe('alpha: kill done; now killed');
    expect(handles.get('alpha')!.calls).toContain('kill:rug-wave (telegram:user:4242)');
    expect(await answerTo(`/forceexit alpha ${HELD_MINT} 5000`)).toBe('alpha: exit of HeLd…1111 placed (int_fake_1)');
    expect(handles.get('alpha')!.calls).toContain(`manual:close:${HELD_MINT}:5000:telegram:user:4242`);
    expect(await answerTo(`/forceexit alpha ${OTHER_MINT}`)).toBe(`ENGINE_MANUAL_REFUSED: no open position on ${OTHER_MINT}`);
    expect(await answerTo('/forceexit alpha ../../../etc/passwd')).toMatch(/^mint must be a token mint address: base58 text of 32 bytes/);
    expect(handles.get('alpha')!.calls.filter((c) => c.includes('passwd'))).toEqual([]);
    expect(await answerTo('/kill nope')).toMatch(/^no deployment named "nope"/);
    // A stranger's command: no answer, no action. The operator's next command proves it was read.
    const calls = handles.get('alpha')!.calls.length;
    const sent = bot.sent.length;
    bot.say(STRANGER, '/resume alpha');
    expect(await answerTo('/status')).toMatch(/^alpha: killed/);
    expect(bot.sent.slice(sent).every((m) => String(m.chat_id) === String(OPERATOR))).toBe(true);
    expect(handles.get('alpha')!.calls.length).toBe(calls);
    expect(ctl.stats().refusedChats).toBe(1);
  }, 30_000);

  it('authorises by sender: in an allowed group only the allowed users command, and the journal names the user; a group id alone, an anonymous admin or an allowed user in another group command nothing', async () => {
    const GROUP = -1001234567890;
    const OTHER_GROUP = -1009999999999;
    const { handles } = await startControl({ chats: [String(GROUP)], users: [String(OPERATOR)] });
    const [ctl, bot] = [control!, api!];
    const calls = () => handles.get('alpha')!.calls.filter((c) => c !== 'start');
    const answered = async (chat: number, text: string, from: Parameters<typeof bot.say>[2]): Promise<string> => {
      const before = bot.sent.length;
      bot.say(chat, text, from);
      return (await until(`an answer to ${text}`, () => bot.sent[before])).text;
    };
    // each refused command is followed by the operator's own in the same group: its answer proves the refused one was read
    bot.say(GROUP, '/kill alpha from-a-member', { chatType: 'supergroup', user: STRANGER });
    bot.say(GROUP, '/kill alpha anonymous', { chatType: 'supergroup', user: 1087968824, senderChat: GROUP });
    bot.say(OTHER_GROUP, '/kill alpha elsewhere', { chatType: 'supergroup', user: OPERATOR });
    bot.say(STRANGER, `/forceexit alpha ${HELD_MINT}`); // a private chat not on the list
    expect(await answered(GROUP, `/forceexit alpha ${HELD_MINT} 2500`, { chatType: 'supergroup', user: OPERATOR, username: 'op_alice' })).toBe(
      'alpha: exit of HeLd…1111 placed (int_fake_1)',
    );
    expect(calls()).toEqual([`manual:close:${HELD_MINT}:2500:telegram:user:${OPERATOR} (@op_alice) in chat ${GROUP}`]);
    expect(ctl.stats().refusedChats).toBe(4);
    expect(bot.sent.map((m) => String(m.chat_id))).toEqual([String(GROUP)]);
    // the allowed user in a private chat with the bot commands too (the chat is the user)
    expect(await answered(OPERATOR, '/pause alpha lunch', {})).toBe('alpha: pause done; now running');
    expect(calls()).toContain(`pause:lunch (telegram:user:${OPERATOR})`);
  }, 30_000);
});

describe('Telegram control as a Lifecycle', () => {
  const view = () => ({
    supervisor: createSupervisor({
      clock: manualClock(0),
      log: silentLogger(),
      deps: { acquire: async () => ({ deps: {}, release: async () => undefined }) },
      factory: () => {
        throw new Error('no deployment in this test');
      },
    }),
    decisions: createEventLog<DecisionEntry>(10, () => undefined),
    events: createEventLog<DeploymentEvent>(10, () => undefined),
  });

  lifecycleConformance({
    make: async () => {
      const bot = await fakeBotApi();
      const part = createTelegramControl({
        botToken: BOT_TOKEN,
        apiRoot: bot.url,
        allowChatIds: [String(OPERATOR)],
        view: view(),
        log: silentLogger(),
        redactor: createRedactor([BOT_TOKEN]),
      });
      return { part, cleanup: () => bot.close() };
    },
  });

  it('refuses to start with RUNTIME_TELEGRAM_FAILED when the Bot API refuses the token, without the token in the message, and done() resolves with the counters', async () => {
    // a Bot API that refuses every call as Telegram does a wrong token
    const server: Server = createServer((_req, res) =>
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"ok":false,"error_code":401,"description":"Unauthorized"}'),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    onTestFinished(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );
    const part = createTelegramControl({
      botToken: BOT_TOKEN,
      apiRoot: url,
      allowChatIds: [String(OPERATOR)],
      view: view(),
      log: silentLogger(),
      redactor: createRedactor([BOT_TOKEN]),
    });
    const err = await part.start().then(
      () => undefined,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(err?.code).toBe('RUNTIME_TELEGRAM_FAILED');
    expect(err?.message).not.toContain(BOT_TOKEN);
    expect(await part.done()).toMatchObject({ errors: 1 });
    expect(await part.stop()).toBe(await part.done());
    expect(part.health()).toMatchObject({ state: 'failed', ready: false });
  });
});
