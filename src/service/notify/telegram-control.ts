/**
 * Telegram as a control channel (grammy, long polling): `/status`, `/profit`, `/balance`,
 * `/positions`, `/forceexit`, `/pause`, `/resume`, `/kill`, `/unkill`, `/daily`. Commands are
 * authorised by their sender ({@link authorised}): a user on the user allow-list, or a private chat
 * on the chat allow-list (its id is its user's); a group's id alone authorises no member of it.
 * Others are counted and ignored, never told why. Every action goes through the same code as the
 * control API (operator-actions.ts) and is journaled with who sent it (`by: telegram:user:<id>`).
 * `apiRoot` points the bot at another Bot API server (a local fake in tests).
 */
import { Bot, type Context } from 'grammy';
import {
  ChainpilotError,
  createLifecycle,
  describeError,
  lifecycleMembers,
  systemClock,
  type Lifecycle,
  type Logger,
  type Redactor,
} from '../../core/index.js';
import { isAddressText } from '../../core/address-text.js';
import { manualOnDeployment, switchDeployment, type SwitchVerb } from '../operator-actions.js';
import type { DaemonView, SlotView } from '../service-port.js';
import { dailySummaryDraft, pnlText, shortMint, solText } from './messages.js';

export interface TelegramControlOptions {
  readonly botToken: string;
  /** Bot API root (default https://api.telegram.org). */
  readonly apiRoot?: string;
  /**
   * Chats on the allow-list (ids as decimal strings): a private one commands (its id is its user's);
   * in a group one, only the users of `allowUserIds` do.
   */
  readonly allowChatIds: readonly string[];
  /** Users allowed to command the daemon (ids as decimal strings), in a private chat or an allowed chat. */
  readonly allowUserIds?: readonly string[] | undefined;
  readonly view: DaemonView;
  readonly log: Logger;
  readonly redactor: Redactor;
}

export interface TelegramControlStats {
  readonly commands: number;
  readonly refusedChats: number;
  readonly errors: number;
}

/**
 * A {@link Lifecycle}: `start` resolves once long polling runs (rejects when the bot cannot start:
 * a wrong token, no route to the Bot API); polling runs until `stop`, or until the Bot API ends it
 * (then `done` resolves). The report is the final counters.
 */
export interface TelegramControl extends Lifecycle<TelegramControlStats> {
  stats(): TelegramControlStats;
}

/** The parts of an update that decide who sent it (grammy's context has them all). */
export interface TelegramSender {
  readonly chat?: { readonly id: number; readonly type: string } | undefined;
  readonly from?: { readonly id: number; readonly is_bot?: boolean; readonly username?: string | undefined } | undefined;
  /** Set when the message was sent on behalf of a chat (an anonymous group admin, a channel): no user is known. */
  readonly senderChat?: { readonly id: number } | undefined;
}

/**
 * Who may command: the sender, not the chat. A user on `users` in a private chat with the bot or
 * in a chat on `chats`; a private chat on `chats` (its id is its user's, and only that user writes
 * in it). A message sent on behalf of a chat (no user known) or by a bot never commands.
 */
export function authorised(m: TelegramSender, chats: ReadonlySet<string>, users: ReadonlySet<string>): boolean {
  const { chat, from } = m;
  if (chat === undefined || from === undefined || from.is_bot === true || m.senderChat !== undefined) return false;
  const isPrivate = chat.type === 'private' && chat.id === from.id;
  if (users.has(String(from.id))) return isPrivate || chats.has(String(chat.id));
  return isPrivate && chats.has(String(chat.id));
}

/** Who a command came from, as the journal and the reasons keep it: the user id, its @username, and a group chat's id. */
export function senderText(m: TelegramSender): string {
  const name = m.from?.username;
  const at = name !== undefined && /^\w{1,32}$/.test(name) ? ` (@${name})` : '';
  const where = m.chat !== undefined && m.chat.type !== 'private' ? ` in chat ${m.chat.id}` : '';
  return `telegram:user:${m.from?.id ?? 'unknown'}${at}${where}`;
}

const senderOf = (ctx: Context): TelegramSender => ({ chat: ctx.chat, from: ctx.from, senderChat: ctx.msg?.sender_chat });

const HELP =
  'Commands: /status, /profit, /balance, /positions [name], /daily, /pause name [reason], /resume name, /kill name [reason], /unkill name, /forceexit name mint [bps]';

export function createTelegramControl(o: TelegramControlOptions): TelegramControl {
  const bot = new Bot(o.botToken, { client: { apiRoot: (o.apiRoot ?? 'https://api.telegram.org').replace(/\/$/, '') } });
  const allowed = new Set(o.allowChatIds.map(String));
  const users = new Set((o.allowUserIds ?? []).map(String));
  const groups = [...allowed].filter((c) => c.startsWith('-'));
  if (groups.length > 0 && users.size === 0)
    o.log.warn(
      { chats: groups },
      'telegram control: group chats are on the allow-list but notify.telegram.allowUserIds is empty: nobody may command from them (list the users who may)',
    );
  const counts = { commands: 0, refusedChats: 0, errors: 0 };
  const slots = (): SlotView[] => o.view.supervisor.list();
  const slotNamed = (name: string | undefined): SlotView | string => {
    const s = slots().find((x) => x.name === name);
    return (
      s ??
      `no deployment named "${name ?? ''}" (${
        slots()
          .map((x) => x.name)
          .join(', ') || 'none'
      })`
    );
  };
  const argsOf = (ctx: Context): string[] => (typeof ctx.match === 'string' ? ctx.match.trim().split(/\s+/).filter(Boolean) : []);
  const reply = async (ctx: Context, text: string): Promise<void> => {
    await ctx.reply(o.redactor.redact(text), { link_preview_options: { is_disabled: true } });
  };

  bot.use(async (ctx, next) => {
    if (!authorised(senderOf(ctx), allowed, users)) {
      counts.refusedChats++;
      o.log.warn(
        { chat: ctx.chat?.id, chatType: ctx.chat?.type, user: ctx.from?.id },
        'telegram: a command from a sender not on the allow-list (user, or private chat); ignored',
      );
      return;
    }
    counts.commands++;
    await next();
  });

  bot.command(['start', 'help'], (ctx) => reply(ctx, HELP));
  bot.command('status', (ctx) =>
    reply(
      ctx,
      slots()
        .map((s) => {
          const sum = s.handle?.stats().summary;
          return `${s.name}: ${s.state}${s.cause ? ` (${s.cause.code}: ${s.cause.message})` : ''}${sum ? `, equity ${solText(sum.equityLamports)} SOL, ${sum.openPositions} open` : ''}`;
        })
        .join('\n') || 'no deployments',
    ),
  );
  bot.command('profit', (ctx) =>
    reply(
      ctx,
      slots()
        .flatMap((s) => {
          const sum = s.handle?.stats().summary;
          return sum
            ? [
                `${s.name}: realised ${pnlText(sum.realisedLamports)}, unrealised ${pnlText(sum.unrealisedLamports)} (book); ${sum.trades} trades, ${sum.wins} won since the run started`,
              ]
            : [];
        })
        .join('\n') || 'no running deployment',
    ),
  );
  bot.command('balance', (ctx) => {
    let total = 0n;
    const lines = slots().flatMap((s) => {
      const sum = s.handle?.stats().summary;
      if (!sum) return [];
      total += sum.equityLamports;
      return [`${s.name}: equity ${solText(sum.equityLamports)} SOL`];
    });
    return reply(ctx, lines.length ? `${lines.join('\n')}\ntotal: ${solText(total)} SOL` : 'no running deployment');
  });
  bot.command('positions', (ctx) => {
    const [only] = argsOf(ctx);
    const lines = slots()
      .filter((s) => only === undefined || s.name === only)
      .flatMap((s) =>
        (s.handle?.stats().positions ?? []).map(
          (p) =>
            `${s.name} ${shortMint(p.mint)} (${p.strategyId}): cost ${solText(p.costLamports)} SOL, value ${p.valueLamports === undefined ? '?' : solText(p.valueLamports)} SOL${p.unrealisedLamports === undefined ? '' : `, ${pnlText(p.unrealisedLamports)}`}\n${p.mint}`,
        ),
      );
    return reply(ctx, lines.join('\n') || 'no open positions');
  });
  bot.command('daily', (ctx) => {
    const day = new Date().toISOString().slice(0, 10);
    const lines = slots().flatMap((s) => {
      const st = s.handle?.stats();
      return st ? [dailySummaryDraft(s.name, day, Date.now(), { ...st.summary, dailyLossLamports: st.risk.dailyLossLamports }).text] : [];
    });
    return reply(ctx, lines.join('\n') || 'no running deployment');
  });
  const switchCommand = (verb: SwitchVerb) => async (ctx: Context) => {
    const [name, ...rest] = argsOf(ctx);
    const slot = slotNamed(name);
    if (typeof slot === 'string') return reply(ctx, slot);
    const who = senderText(senderOf(ctx));
    const r = await switchDeployment(slot, verb, rest.length ? `${rest.join(' ')} (${who})` : `${verb} from ${who}`);
    const after = slots().find((s) => s.name === slot.name);
    return reply(ctx, r.ok ? `${slot.name}: ${verb} done; now ${after?.state ?? slot.state}` : `${r.code}: ${r.message}`);
  };
  for (const verb of ['pause', 'resume', 'kill', 'unkill'] as const) bot.command(verb, switchCommand(verb));
  bot.command('forceexit', (ctx) => {
    const [name, mint, bps] = argsOf(ctx);
    const slot = slotNamed(name);
    if (typeof slot === 'string') return reply(ctx, slot);
    if (!mint) return reply(ctx, 'usage: /forceexit name mint [bps]');
    if (!isAddressText(mint)) return reply(ctx, 'mint must be a token mint address: base58 text of 32 bytes (as /positions prints it)');
    const fractionBps = bps === undefined ? 10_000 : Number(bps);
    const r = manualOnDeployment(slot, { action: 'close', mint, fractionBps }, { by: senderText(senderOf(ctx)), why: 'forceexit from Telegram' });
    return reply(ctx, r.ok ? `${slot.name}: exit of ${shortMint(mint)} placed (${r.value.intentId})` : `${r.code}: ${r.message}`);
  });

  bot.catch((e) => {
    counts.errors++;
    o.log.warn({ err: o.redactor.redact(describeError(e.error)) }, 'telegram: a command failed');
  });

  let polling: Promise<void> | undefined;
  let polls = false;
  const life = createLifecycle(
    {
      name: 'telegram control',
      start: () =>
        new Promise<void>((resolve, reject) => {
          polling = bot
            .start({
              drop_pending_updates: false,
              onStart: () => {
                polls = true;
                o.log.info({}, 'telegram control: polling');
                resolve();
              },
            })
            .then(
              () => {
                polls = false;
                void life.end('polling stopped');
              },
              (e: unknown) => {
                polls = false;
                counts.errors++;
                o.log.error({ err: o.redactor.redact(describeError(e)) }, 'telegram control stopped');
                reject(
                  new ChainpilotError('RUNTIME_TELEGRAM_FAILED', `telegram control: long polling failed: ${o.redactor.redact(describeError(e))}`, {
                    retry: 'not_retryable',
                  }),
                );
                void life.end(o.redactor.redact(describeError(e)));
              },
            );
        }),
      async halt() {
        if (bot.isRunning()) await bot.stop();
        await polling;
      },
      report: () => ({ ...counts }),
      notReady: () => (polls ? [] : ['telegram control: not polling']),
    },
    { log: o.log, clock: systemClock(), defaultDrainMs: 0 },
  );
  return {
    ...lifecycleMembers(life),
    stats: () => ({ ...counts }),
  };
}
