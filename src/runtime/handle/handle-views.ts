/**
 * What the handle shows of its run, built from the engine when asked: open positions with their
 * exit levels, the risk day, an empty summary and feed before the parts exist. Exact amounts.
 */
import type { UnixMs } from '../../core/index.js';
import type { Engine } from '../../engine/engine.js';
import type { DeploymentStats, FeedHealth, PositionView } from './deployment-handle.js';

/** The feed as health shows it before the watch exists. */
export const EMPTY_FEED: FeedHealth = {
  state: 'connecting',
  connected: false,
  lastFrameAt: undefined,
  framesPerSec: 0,
  frames: 0,
  gaps: 0,
  reconnects: 0,
  rejected: 0,
  rejectedByFamily: {},
  dropped: 0,
  backfillFailures: 0,
};

/** The engine's open positions, each marked at its last price, with the exit levels it holds. */
export function positionViews(engine: Engine): PositionView[] {
  return engine.portfolio.open().map((p) => {
    const value = engine.portfolio.valueOf(p);
    const lv = engine.exitLevels(p.key);
    return {
      strategyId: p.strategyId,
      mint: p.mint,
      tokenRaw: p.tokenRaw,
      decimals: p.decimals,
      costLamports: p.costLamports,
      valueLamports: value,
      unrealisedLamports: value === undefined ? undefined : value - p.costLamports,
      realisedLamports: p.realisedLamports,
      openedAt: p.openedAt,
      ...(lv
        ? {
            exits: {
              entryPrice: lv.entry.toFixed(),
              takeProfit: lv.takeProfit.map((t) => ({ level: t.level + 1, multiple: t.multiple, price: t.price.toFixed() })),
              stopLossPrice: lv.stopLoss?.toFixed(),
              trailingStopPrice: lv.trailing?.toFixed(),
              timeStopAt: lv.timeStopAt,
            },
          }
        : {}),
    };
  });
}

/** Risk state from the engine's risk day (day boundary, day-start equity, halt, kill switch: persisted in the store). */
export function riskView(engine: Engine | undefined, at: UnixMs, limit: bigint | undefined, maxExposure: bigint | undefined): DeploymentStats['risk'] {
  const totals = engine?.portfolio.totals();
  const day = engine?.risk.day.snapshot();
  const startEquity = day?.dayStartEquityLamports ?? totals?.startingCashLamports ?? 0n;
  const equity = totals?.equityLamports ?? startEquity;
  return {
    dayStartedAt: day?.dayStartedAt ?? at,
    dayStartEquityLamports: startEquity,
    dailyLossLamports: startEquity > equity ? startEquity - equity : 0n,
    dailyLossLimitLamports: limit,
    dailyHalted: engine?.risk.halted(at) ?? false,
    killed: engine?.risk.killed ?? false,
    killReason: day?.killReason,
    exposureLamports: totals?.openCostLamports ?? 0n,
    maxExposureLamports: maxExposure,
  };
}

/** The summary of a run that never had an engine. */
export function emptySummary(at: UnixMs): DeploymentStats['summary'] {
  return {
    startedAt: undefined,
    endedAt: at,
    events: 0,
    frames: 0,
    badFrames: 0,
    intents: 0,
    fills: 0,
    denials: 0,
    rejections: 0,
    refusalsByCode: {},
    trades: 0,
    wins: 0,
    winRate: 0,
    realisedLamports: 0n,
    unrealisedLamports: 0n,
    feesLamports: 0n,
    equityLamports: 0n,
    maxDrawdownLamports: 0n,
    openPositions: 0,
    strategyErrors: 0,
    tokensQuarantined: 0,
  };
}
