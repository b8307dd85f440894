/**
 * The engine of a deployment, shared by every mode's composition root (paper, backtest, live): the
 * deployment's risk limits, execution defaults and error policy, its decision log file, and the
 * kill switch. Only the executor, feed, clock and starting cash differ between modes.
 */
import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import { ensureDir } from '../store/ensure-dir.js';
import { dirname } from 'node:path';
import { ChainpilotError, lamports, silentLogger, type Clock, type Logger, type Random } from '../../core/index.js';
import type { Deployment } from '../../config/index.js';
import type { DataPort } from '../../engine/strategy/data-lookup.js';
import { formatDecision, type DecisionEntry, type DecisionSink } from '../../engine/logs/decision-log.js';
import { createEngine, type Engine } from '../../engine/engine.js';
import type { Executor, OrderIntent } from '../../engine/orders/execution-port.js';
import type { StreamFeed } from '../../engine/events/feed-port.js';
import type { StrategyInstance } from '../../engine/strategy/strategy-instance.js';
import type { RestoredFailedFee, RestoredFill } from '../../engine/engine.js';
import type { CarriedTotals } from '../../engine/market/portfolio.js';
import type { Admission } from '../../engine/orders/order-flow.js';
import { dayBoundaryOffsetMs, type RiskStateStore } from '../../engine/orders/risk-day.js';

export interface DeploymentEngineOptions {
  readonly deployment: Deployment;
  readonly strategies: readonly StrategyInstance[];
  readonly feed: StreamFeed;
  readonly executor: Executor;
  readonly clock: Clock;
  readonly random: Random;
  readonly startingCashLamports: bigint;
  readonly log?: Logger;
  readonly data?: DataPort;
  /** Extra decision sink (tests); the deployment's `telemetry.decisionLog` file is written too. */
  readonly decisions?: DecisionSink;
  readonly onIntent?: (intent: OrderIntent) => void;
  /** Fills of earlier runs to rebuild positions from (live: the journal's landed intents). */
  readonly restoredFills?: readonly RestoredFill[];
  /** The runtime's admission check (paused entries, halted deployment). */
  readonly admission?: Admission;
  /** Where the risk day, daily-loss halt and kill switch persist (the deployment store; default in memory). */
  readonly riskStore?: RiskStateStore;
  /** Fees of failed transactions of earlier runs (live: the journal). */
  readonly restoredFailedFees?: readonly RestoredFailedFee[];
  /** Sums of closed positions a paper book no longer holds (its retention). */
  readonly restoredCarry?: CarriedTotals;
  /** Prefix of intent ids (live: a random run prefix; default `int_`). */
  readonly intentIdPrefix?: string;
}

export interface DeploymentEngine {
  readonly engine: Engine;
  /** Flushes and closes the decision log file (call after the engine stopped). */
  closeDecisionLog(): Promise<void>;
}

/** Builds the engine of `deployment` around the given executor and feed. */
export function createDeploymentEngine(o: DeploymentEngineOptions): DeploymentEngine {
  const d = o.deployment;
  const log = o.log ?? silentLogger();
  let file: WriteStream | undefined;
  if (d.telemetry.decisionLog) {
    const path = d.telemetry.decisionLog;
    // Opened synchronously: an unwritable path is a coded start error now, not a stream error later.
    let fd: number;
    try {
      ensureDir(dirname(path));
      fd = openSync(path, 'w');
    } catch (e) {
      throw new ChainpilotError(
        'RUNTIME_START_FAILED',
        `telemetry.decisionLog: cannot write ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'}); pick a writable path or remove the key`,
        { retry: 'not_retryable', context: { field: 'telemetry.decisionLog' }, cause: e },
      );
    }
    file = createWriteStream('', { fd });
    file.on('error', (e) => log.error({ err: e.message, path }, 'decision log write failed; later decisions are not in the file'));
  }
  const sinks: DecisionSink[] = [];
  if (o.decisions) sinks.push(o.decisions);
  if (file) {
    const f = file;
    sinks.push((e: DecisionEntry) => f.write(formatDecision(e)));
  }
  const r = d.risk;
  const engine = createEngine({
    feed: o.feed,
    executor: o.executor,
    clock: o.clock,
    random: o.random,
    strategies: o.strategies,
    log,
    startingCashLamports: o.startingCashLamports,
    ...(o.restoredFills ? { restoredFills: o.restoredFills } : {}),
    ...(o.riskStore ? { riskStore: o.riskStore } : {}),
    ...(o.restoredFailedFees ? { restoredFailedFees: o.restoredFailedFees } : {}),
    ...(o.restoredCarry ? { restoredCarry: o.restoredCarry } : {}),
    ...(o.intentIdPrefix ? { intentIdPrefix: o.intentIdPrefix } : {}),
    dayBoundaryOffsetMs: dayBoundaryOffsetMs(r.dayBoundary),
    risk: {
      maxTradeLamports: r.maxTradeLamports,
      maxOpenPositions: r.maxOpenPositions,
      maxExposureLamports: r.maxExposureLamports,
      maxPerTokenLamports: r.maxPerTokenLamports,
      cooldownMs: r.cooldown,
      dailyLossLimitLamports: r.dailyLossLimitLamports,
      allowMints: r.allowMints,
      denyMints: r.denyMints,
      maxRiskScore: r.maxRiskScore,
      maxBundlerPct: r.maxBundlerPct,
      maxSniperPct: r.maxSniperPct,
      maxInsiderPct: r.maxInsiderPct,
      maxTop10Pct: r.maxTop10Pct,
      maxDevHoldingPct: r.maxDevHoldingPct,
      minLiquidityUsd: r.minLiquidityUsd,
      minHolders: r.minHolders,
      requireSafetyData: r.requireSafetyData,
    },
    execution: {
      slippageBps: d.execution.slippageBps,
      priorityFeeLamports: lamports(BigInt(d.execution.priorityFeeLamports)),
      defaultDecimals: d.execution.defaultDecimals,
    },
    decisions: (e) => {
      for (const s of sinks) s(e);
    },
    ...(o.data ? { data: o.data } : {}),
    ...(o.onIntent ? { onIntent: o.onIntent } : {}),
    ...(o.admission ? { admission: o.admission } : {}),
    errorPolicy: { maxErrors: d.engine.haltAfterErrors, windowMs: d.engine.errorWindow },
    positionPriceRoom: d.engine.positionPriceRoom,
    marketRetentionMs: d.engine.marketRetention,
  });
  // The file's switch is re-applied at every start and not persisted: removing it from the file clears it.
  if (r.killSwitch) engine.kill('risk.killSwitch is set in the deployment', { persist: false });
  return {
    engine,
    async closeDecisionLog() {
      if (file) {
        const f = file;
        await new Promise<void>((res) => f.end(() => res()));
      }
    },
  };
}
