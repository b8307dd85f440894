/**
 * Composition root of paper trading (and backtests): a deployment, a feed and a clock become an
 * engine with the paper executor. The feed may be the Datastream client (live or simulator) or a
 * recording replay; nothing below here knows which.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { silentLogger, type Clock, type Logger, type Random } from '../core/index.js';
import type { Deployment } from '../config/index.js';
import type { DataPort } from '../engine/data-lookup.js';
import { formatDecision, type DecisionEntry, type DecisionSink } from '../engine/decision-log.js';
import { createEngine, type Engine } from '../engine/engine.js';
import type { StreamFeed } from '../engine/feed-port.js';
import type { OrderIntent } from '../engine/execution-port.js';
import type { StrategyInstance } from '../engine/strategy-instance.js';
import { createPaperExecutor, type PaperExecutor } from '../executors/paper/paper-executor.js';

export interface PaperSessionOptions {
  readonly deployment: Deployment;
  readonly strategies: readonly StrategyInstance[];
  readonly feed: StreamFeed;
  readonly clock: Clock;
  readonly random: Random;
  readonly log?: Logger;
  readonly data?: DataPort;
  /** Extra decision sink (tests); the deployment's `telemetry.decisionLog` file is written too. */
  readonly decisions?: DecisionSink;
  readonly onIntent?: (intent: OrderIntent) => void;
}

export interface PaperSession {
  readonly engine: Engine;
  readonly executor: PaperExecutor;
  start(): Promise<void>;
  /** Stops the engine and flushes the decision log. */
  stop(signal?: AbortSignal): Promise<void>;
}

export function createPaperSession(o: PaperSessionOptions): PaperSession {
  const d = o.deployment;
  let file: WriteStream | undefined;
  if (d.telemetry.decisionLog) {
    mkdirSync(dirname(d.telemetry.decisionLog), { recursive: true });
    file = createWriteStream(d.telemetry.decisionLog, { flags: 'w' });
  }
  const sinks: DecisionSink[] = [];
  if (o.decisions) sinks.push(o.decisions);
  if (file) {
    const f = file;
    sinks.push((e: DecisionEntry) => f.write(formatDecision(e)));
  }
  const market = { get: (mint: string) => engine.market.get(mint) };
  const executor = createPaperExecutor({
    clock: o.clock, market, latencyMs: d.paper.latency,
    fillModel: {
      extraSlippageBps: d.paper.extraSlippageBps, defaultPoolFeeBps: d.paper.defaultPoolFeeBps,
      networkFeeLamports: BigInt(d.paper.networkFeeLamports), priorityFeeCapLamports: BigInt(d.paper.priorityFeeCapLamports),
      assumedDepthLamports: d.paper.assumedDepthSol,
    },
  });
  const r = d.risk;
  const engine = createEngine({
    feed: o.feed, executor, clock: o.clock, random: o.random, strategies: o.strategies, log: o.log ?? silentLogger(),
    startingCashLamports: d.paper.startingBalanceSol,
    risk: {
      maxTradeLamports: r.maxTradeSol, maxOpenPositions: r.maxOpenPositions, maxExposureLamports: r.maxExposureSol,
      maxPerTokenLamports: r.maxPerTokenSol, cooldownMs: r.cooldown, dailyLossLimitLamports: r.dailyLossLimitSol,
      allowMints: r.allowMints, denyMints: r.denyMints, maxRiskScore: r.maxRiskScore, maxBundlerPct: r.maxBundlerPct,
      maxSniperPct: r.maxSniperPct, maxInsiderPct: r.maxInsiderPct, maxTop10Pct: r.maxTop10Pct, maxDevHoldingPct: r.maxDevHoldingPct,
      minLiquidityUsd: r.minLiquidityUsd, minHolders: r.minHolders, requireSafetyData: r.requireSafetyData,
    },
    execution: { slippageBps: d.execution.slippageBps, priorityFeeLamports: BigInt(d.execution.priorityFeeLamports), defaultDecimals: d.execution.defaultDecimals },
    decisions: (e) => {
      for (const s of sinks) s(e);
    },
    ...(o.data ? { data: o.data } : {}),
    ...(o.onIntent ? { onIntent: o.onIntent } : {}),
    errorPolicy: { maxErrors: d.engine.haltAfterErrors, windowMs: d.engine.errorWindow },
    positionPriceRoom: d.engine.positionPriceRoom,
  });
  if (r.killSwitch) engine.kill('risk.killSwitch is set in the deployment');
  return {
    engine,
    executor,
    start: () => engine.start(),
    async stop(signal) {
      await engine.stop(signal);
      if (file) {
        const f = file;
        await new Promise<void>((res) => f.end(() => res()));
      }
    },
  };
}
