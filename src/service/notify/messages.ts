/**
 * What is worth telling a person, as text that reads well: deployment events and decisions become
 * notifications with an event kind (the `notify.events` key that sets its level), a stable id (the
 * webhook's idempotency key) and a message with the short mint, SOL amounts and PnL. Built only
 * from fields of events; every text also passes through the redactor.
 */
import type { DecisionEntry, DeploymentEvent, ShutdownReport } from '../../runtime/handle/deployment-handle.js';

export type NotifyEventKind = 'fills' | 'intentFailures' | 'dailyLossHalt' | 'killSwitch' | 'feed' | 'fatal' | 'shutdown' | 'dailySummary' | 'memory';

export interface Notification {
  /** Stable per event (idempotency key): deployment, kind and the event's sequence or time. */
  readonly id: string;
  readonly event: NotifyEventKind;
  readonly level: 'on' | 'quiet';
  readonly deployment: string;
  readonly at: number;
  readonly text: string;
  readonly data: Readonly<Record<string, string | number | boolean | null>>;
}

export type Draft = Omit<Notification, 'level' | 'id'> & { readonly key: string };

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Lamports (bigint or decimal string) as SOL with up to 4 decimals: `1.2345`. */
export function solText(lamports: bigint | string, digits = 4): string {
  let v = typeof lamports === 'bigint' ? lamports : BigInt(lamports);
  const neg = v < 0n;
  if (neg) v = -v;
  const frac = (v % LAMPORTS_PER_SOL).toString().padStart(9, '0').slice(0, digits).replace(/0+$/, '');
  return `${neg ? '-' : ''}${(v / LAMPORTS_PER_SOL).toString()}${frac ? `.${frac}` : ''}`;
}

/** Signed PnL in SOL: `+0.12 SOL`, `-0.05 SOL`. */
export const pnlText = (lamports: bigint | string): string => {
  const v = typeof lamports === 'bigint' ? lamports : BigInt(lamports);
  return `${v > 0n ? '+' : ''}${solText(v)} SOL`;
};

export const shortMint = (mint: string): string => (mint.length > 10 ? `${mint.slice(0, 4)}…${mint.slice(-4)}` : mint);

/** A decision worth a notification (fills, failed intents, the first daily-loss denial). */
export function fromDecision(deployment: string, seq: number, e: DecisionEntry): Draft | undefined {
  if (e.kind === 'fill') {
    const verb = e.side === 'buy' ? 'bought' : 'sold';
    return {
      key: `d${seq}`,
      event: 'fills',
      deployment,
      at: e.at,
      text: `${deployment}: ${verb} ${shortMint(e.mint)} for ${solText(e.solAmount)} SOL (${e.tokenAmount} raw tokens, fee ${solText(e.feeLamports, 6)} SOL) by ${e.strategyId}`,
      data: {
        side: e.side,
        mint: e.mint,
        strategyId: e.strategyId,
        solLamports: e.solAmount,
        tokenRaw: e.tokenAmount,
        feeLamports: e.feeLamports,
        intentId: e.intentId,
      },
    };
  }
  if (e.kind === 'unfilled') {
    return {
      key: `d${seq}`,
      event: 'intentFailures',
      deployment,
      at: e.at,
      text: `${deployment}: intent ${e.outcome} (${e.code}) for ${e.strategyId}: ${e.reason}`,
      data: { outcome: e.outcome, code: e.code, strategyId: e.strategyId, intentId: e.intentId },
    };
  }
  return undefined;
}

/** Tracks feed state per deployment so that only transitions (lost, back) notify. */
export function createEventMapper(): (deployment: string, seq: number, e: DeploymentEvent) => Draft | undefined {
  const feedUp = new Map<string, boolean>();
  return (deployment, seq, e) => {
    const key = `e${seq}`;
    if (e.type === 'state') {
      if (e.state === 'killed') {
        const reason = e.cause?.message.replace(/^kill switch on: /, '') ?? null;
        return {
          key,
          event: 'killSwitch',
          deployment,
          at: e.at,
          text: `${deployment}: kill switch ON: no new buys until unkilled${reason ? ` (reason: ${reason})` : ''}`,
          data: { state: e.state, reason },
        };
      }
      if (e.state === 'halted' && e.cause?.code === 'ENGINE_STRATEGY_HALTED') {
        return {
          key,
          event: 'fatal',
          deployment,
          at: e.at,
          text: `${deployment}: degraded: ${e.cause.code}: ${e.cause.message}`,
          data: { state: 'degraded', code: e.cause.code },
        };
      }
      if (e.state === 'halted' && e.cause?.code === 'RISK_DAILY_LOSS_HALT') {
        return {
          key,
          event: 'dailyLossHalt',
          deployment,
          at: e.at,
          text: `${deployment}: daily loss limit reached: buys halted until the next day`,
          data: { state: e.state, code: e.cause.code },
        };
      }
      if (e.state === 'halted' || e.state === 'failed') {
        return {
          key,
          event: 'fatal',
          deployment,
          at: e.at,
          text: `${deployment}: ${e.state}${e.cause ? `: ${e.cause.code}: ${e.cause.message}` : ''}`,
          data: { state: e.state, code: e.cause?.code ?? null },
        };
      }
      return undefined;
    }
    if (e.type === 'feed') {
      // Lost: disconnected, or connected but silent past feed.staleAfter (the feed watch's `stale`).
      const up = e.health.connected && e.health.state !== 'stale';
      const before = feedUp.get(deployment);
      feedUp.set(deployment, up);
      if (before === undefined ? up : before === up) return undefined;
      return {
        key,
        event: 'feed',
        deployment,
        at: e.at,
        text: up
          ? `${deployment}: market feed back (${e.health.state}); entries follow feed.onLoss again`
          : `${deployment}: market feed lost (${e.health.state}); entries follow feed.onLoss`,
        data: { connected: e.health.connected, state: e.health.state, gaps: e.health.gaps, reconnects: e.health.reconnects },
      };
    }
    if (e.type === 'shutdown') return shutdownDraft(key, deployment, e.at, e.report);
    if (e.type === 'alert' && e.code === 'LIVE_JOURNAL_UNAVAILABLE') {
      // one alert when the outage begins (error) and one when the journal accepted every waiting write (info)
      const begins = e.level !== 'info';
      return {
        key,
        event: 'fatal',
        deployment,
        at: e.at,
        text: begins ? `${deployment}: ${e.message}` : `${deployment}: the journal writes again; no longer degraded`,
        data: { state: begins ? 'degraded' : 'recovered', code: e.code },
      };
    }
    return undefined;
  };
}

function shutdownDraft(key: string, deployment: string, at: number, r: ShutdownReport): Draft {
  const s = r.summary;
  const open = r.intents.filter((i) => i.outcome === 'unresolved').length;
  return {
    key,
    event: 'shutdown',
    deployment,
    at,
    text: `${deployment}: stopped${r.fatal ? ` on ${r.fatal.code}` : ''}. Book: equity ${solText(s.equityLamports)} SOL, realised ${pnlText(s.realisedLamports)}, unrealised ${pnlText(s.unrealisedLamports)}, ${s.openPositions} open positions; this run: ${s.fills} fills${open ? `, ${open} unresolved intents (reconciled at the next start)` : ''}${r.drainedWithinDeadline ? '' : '; drain deadline passed'}`,
    data: { equityLamports: s.equityLamports.toString(), realisedLamports: s.realisedLamports.toString(), fills: s.fills, fatal: r.fatal?.code ?? null },
  };
}

/** The daily summary of one deployment at the day boundary. */
export function dailySummaryDraft(
  deployment: string,
  day: string,
  at: number,
  s: { equityLamports: bigint; realisedLamports: bigint; unrealisedLamports: bigint; fills: number; openPositions: number; dailyLossLamports: bigint },
): Draft {
  return {
    key: `day-${day}`,
    event: 'dailySummary',
    deployment,
    at,
    text: `${deployment}: summary for ${day}: book equity ${solText(s.equityLamports)} SOL, realised ${pnlText(s.realisedLamports)}, unrealised ${pnlText(s.unrealisedLamports)}, ${s.openPositions} open positions; ${s.fills} fills since the run started; daily loss ${solText(s.dailyLossLamports)} SOL`,
    data: { day, equityLamports: s.equityLamports.toString(), realisedLamports: s.realisedLamports.toString(), fills: s.fills },
  };
}
