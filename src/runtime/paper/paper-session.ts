/**
 * Composition root of paper trading (and backtests): a deployment, a feed and a clock become an
 * engine with the paper executor. The feed may be the Datastream client (live or simulator) or a
 * recording replay; nothing below here knows which.
 */
import type { Clock, Logger, Random } from '../../core/index.js';
import type { Deployment } from '../../config/index.js';
import type { DataPort } from '../../engine/strategy/data-lookup.js';
import type { DecisionSink } from '../../engine/logs/decision-log.js';
import type { Engine } from '../../engine/engine.js';
import type { StreamFeed } from '../../engine/events/feed-port.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import type { Admission } from '../../engine/orders/order-flow.js';
import type { StrategyInstance } from '../../engine/strategy/strategy-instance.js';
import { paperExecutorSettings } from './paper-executor-settings.js';
import { createPaperExecutor, type PaperExecutor } from '../../executors/paper/paper-executor.js';
import { createDeploymentEngine } from '../compose/deployment-engine.js';

export interface PaperSessionOptions {
  readonly deployment: Deployment;
  readonly strategies: readonly StrategyInstance[];
  readonly feed: StreamFeed;
  readonly clock: Clock;
  readonly random: Random;
  /** The run's engine seed (`random` is seeded with it): the calibrated fill model draws from its own generator of it. */
  readonly seed?: number;
  readonly log?: Logger;
  readonly data?: DataPort;
  /** Extra decision sink (tests); the deployment's `telemetry.decisionLog` file is written too. */
  readonly decisions?: DecisionSink;
  readonly onIntent?: (intent: OrderIntent) => void;
  /** The runtime's admission check (a backtest: ENGINE_STOPPED from the recording's stop mark). */
  readonly admission?: Admission;
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
  const market = { get: (mint: string) => engine.market.get(mint) };
  const executor = createPaperExecutor({
    clock: o.clock,
    market,
    ...paperExecutorSettings(d, o.seed ?? 1),
  });
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a factory's methods are closures: no `this`
  const { engine, closeDecisionLog } = createDeploymentEngine({
    deployment: d,
    strategies: o.strategies,
    feed: o.feed,
    executor,
    clock: o.clock,
    random: o.random,
    startingCashLamports: d.paper.startingBalanceLamports,
    ...(o.log ? { log: o.log } : {}),
    ...(o.data ? { data: o.data } : {}),
    ...(o.decisions ? { decisions: o.decisions } : {}),
    ...(o.onIntent ? { onIntent: o.onIntent } : {}),
    ...(o.admission ? { admission: o.admission } : {}),
  });
  return {
    engine,
    executor,
    start: () => engine.start(),
    async stop(signal) {
      await engine.stop(signal);
      await closeDecisionLog();
    },
  };
}
