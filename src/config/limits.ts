/**
 * The allowed range of every numeric and duration key of a deployment file, in one table. The
 * schema builds its checks from it, the loader words its errors from it ("expected a duration from
 * 100ms to 1d; got 0"), and docs/configuration.md prints it (a test keeps the two in step).
 * A value the schema accepts must run as the user meant: each bound below is where a larger or
 * smaller value stops making sense or starts to harm (see docs/configuration.md, "Limits").
 */

/** How a key is written and checked. SOL bounds are whole SOL; duration bounds are milliseconds. */
export type LimitKind = 'integer' | 'number' | 'duration' | 'sol' | 'multiple' | 'speed';

export interface NumericLimit {
  readonly kind: LimitKind;
  readonly min: number;
  readonly max: number;
}

const SECOND_MS = 1_000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** More SOL than exists (about 6e8): every lamport amount fits a u64 with room to add. */
const MAX_SOL = 1_000_000_000;
const bps = (min = 0): NumericLimit => ({ kind: 'integer', min, max: 10_000 });
const pct: NumericLimit = { kind: 'number', min: 0, max: 100 };
const sol = (min = 0): NumericLimit => ({ kind: 'sol', min, max: MAX_SOL });

/** Dotted key paths (`[]` for list items) to their allowed ranges, in the order of the docs table. */
export const CONFIG_LIMITS = {
  'endpoints.simulator.seed': { kind: 'integer', min: 0, max: Number.MAX_SAFE_INTEGER },
  'endpoints.simulator.speed': { kind: 'speed', min: 0.01, max: 1_000 },
  'strategies[].exits.takeProfit[].multiple': { kind: 'multiple', min: 1, max: 1_000_000 },
  'strategies[].exits.takeProfit[].sellBps': bps(1),
  'strategies[].exits.stopLossBps': bps(),
  'strategies[].exits.trailingStopBps': bps(),
  'strategies[].exits.timeStop': { kind: 'duration', min: SECOND_MS, max: 365 * DAY_MS },
  'strategies[].exits.exitOnSafety.maxBundlerPct': pct,
  'strategies[].exits.exitOnSafety.maxSniperPct': pct,
  'strategies[].exits.exitOnSafety.maxInsiderPct': pct,
  'strategies[].exits.exitOnSafety.maxTop10Pct': pct,
  'strategies[].exits.exitOnSafety.maxDevHoldingPct': pct,
  'risk.maxTradeSol': sol(),
  'risk.maxOpenPositions': { kind: 'integer', min: 1, max: 10_000 },
  'risk.maxExposureSol': sol(),
  'risk.maxPerTokenSol': sol(),
  'risk.cooldown': { kind: 'duration', min: 0, max: 365 * DAY_MS },
  'risk.dailyLossLimitSol': sol(),
  'risk.maxRiskScore': { kind: 'number', min: 0, max: 1_000_000 },
  'risk.maxBundlerPct': pct,
  'risk.maxSniperPct': pct,
  'risk.maxInsiderPct': pct,
  'risk.maxTop10Pct': pct,
  'risk.maxDevHoldingPct': pct,
  'risk.minLiquidityUsd': { kind: 'number', min: 0, max: 1e12 },
  'risk.minHolders': { kind: 'integer', min: 0, max: 1_000_000_000 },
  'execution.slippageBps': bps(),
  'execution.priorityFeeLamports': { kind: 'integer', min: 0, max: 1_000_000_000 },
  'execution.defaultDecimals': { kind: 'integer', min: 0, max: 18 },
  'execution.retries': { kind: 'integer', min: 0, max: 10 },
  'execution.slippageRamp.stepBps': bps(1),
  'execution.slippageRamp.maxBps': bps(),
  'execution.priorityFee.percentile': { kind: 'number', min: 0.01, max: 100 },
  'execution.priorityFee.capLamports': { kind: 'integer', min: 0, max: 1_000_000_000 },
  'execution.priorityFee.computeUnits': { kind: 'integer', min: 1, max: 1_400_000 },
  'execution.queue.catchUpTimeout': { kind: 'duration', min: SECOND_MS, max: HOUR_MS },
  'execution.queue.concurrency': { kind: 'integer', min: 1, max: 256 },
  'paper.startingBalanceSol': sol(),
  'paper.latency': { kind: 'duration', min: 0, max: MINUTE_MS },
  'paper.manualHold': { kind: 'duration', min: 0, max: HOUR_MS },
  // at least a day: a restart reads today's intents for the day's spend (live.maxDaySpendSol)
  'paper.bookRetention': { kind: 'duration', min: DAY_MS, max: 3_650 * DAY_MS },
  // below 0: a calibrated correction giving back cost the model charges beyond what live paid (see calibrate's second stage)
  'paper.extraSlippageBps': { kind: 'integer', min: -5_000, max: 10_000 },
  'paper.defaultPoolFeeBps': bps(),
  'paper.networkFeeLamports': { kind: 'integer', min: 0, max: 1_000_000_000 },
  'paper.priorityFeeCapLamports': { kind: 'integer', min: 0, max: 1_000_000_000 },
  'paper.assumedDepthSol': sol(0.001),
  'paper.model.latencyMs[]': { kind: 'integer', min: 0, max: HOUR_MS },
  'paper.model.landing.slotMs': { kind: 'integer', min: 1, max: 60_000 },
  'paper.model.landing.phaseMs': { kind: 'integer', min: 0, max: 60_000 },
  'paper.model.landing.slots[]': { kind: 'integer', min: 1, max: 1_000_000 },
  'paper.model.landing.reportMs[]': { kind: 'integer', min: 0, max: HOUR_MS },
  'paper.model.feeLamports': { kind: 'integer', min: 0, max: 1_000_000_000 },
  'paper.model.rentLamports': { kind: 'integer', min: 0, max: 1_000_000_000 },
  'paper.model.simulationFailureRate': { kind: 'number', min: 0, max: 1 },
  'paper.model.onChainFailureRate': { kind: 'number', min: 0, max: 1 },
  'paper.model.extraSlippageBps': { kind: 'integer', min: -5_000, max: 10_000 },
  'paper.model.graduatedExtraSlippageBps': { kind: 'integer', min: -5_000, max: 10_000 },
  'live.maxTradeSpendSol': sol(),
  'live.maxDaySpendSol': sol(),
  'live.simulatorFundSol': sol(),
  'live.drainTimeout': { kind: 'duration', min: 0, max: HOUR_MS },
  'live.statusPoll': { kind: 'duration', min: 20, max: 10 * SECOND_MS },
  'engine.haltAfterErrors': { kind: 'integer', min: 0, max: 1_000_000 },
  'engine.errorWindow': { kind: 'duration', min: SECOND_MS, max: DAY_MS },
  'engine.marketRetention': { kind: 'duration', min: MINUTE_MS, max: 7 * DAY_MS },
  'telemetry.statusInterval': { kind: 'duration', min: 100, max: HOUR_MS },
  'feed.staleAfter': { kind: 'duration', min: SECOND_MS, max: DAY_MS },
  'shutdown.drain': { kind: 'duration', min: 0, max: HOUR_MS },
  'record.rotateBytes': { kind: 'integer', min: 1_024, max: 1_000_000_000_000 },
  'record.rotateEvery': { kind: 'duration', min: MINUTE_MS, max: 30 * DAY_MS },
  'notify.webhook.timeout': { kind: 'duration', min: 10, max: MINUTE_MS },
  'notify.webhook.retries': { kind: 'integer', min: 0, max: 10 },
  'notify.webhook.retryBase': { kind: 'duration', min: 1, max: MINUTE_MS },
  'notify.webhook.retryMax': { kind: 'duration', min: 1, max: HOUR_MS },
  'notify.telegram.chatId': { kind: 'integer', min: -1_000_000_000_000_000, max: 1_000_000_000_000_000 },
  'notify.telegram.timeout': { kind: 'duration', min: 10, max: MINUTE_MS },
  'notify.telegram.retries': { kind: 'integer', min: 0, max: 10 },
  'notify.telegram.retryBase': { kind: 'duration', min: 1, max: MINUTE_MS },
  'notify.telegram.retryMax': { kind: 'duration', min: 1, max: HOUR_MS },
  'notify.queueSize': { kind: 'integer', min: 1, max: 10_000 },
} as const satisfies Record<string, NumericLimit>;

export type LimitedKey = keyof typeof CONFIG_LIMITS;

/** Limits of command-line options (`--duration`, `--speed`, `--seed`, `--port`). */
export const CLI_LIMITS = {
  '--duration': { kind: 'duration', min: SECOND_MS, max: 365 * DAY_MS },
  '--speed': CONFIG_LIMITS['endpoints.simulator.speed'],
  '--seed': CONFIG_LIMITS['endpoints.simulator.seed'],
  '--port': { kind: 'integer', min: 0, max: 65_535 },
  '--join-latency': { kind: 'duration', min: 0, max: MINUTE_MS },
} as const satisfies Record<string, NumericLimit>;

/**
 * Bounds on the text of a deployment file: its size (read at most this many bytes, so
 * `validate /dev/zero` stops at once), the deployment name (printed on every log line), and every
 * other string and key (paths, ids, strategy params).
 */
export const CONFIG_TEXT_LIMITS = Object.freeze({
  /** Largest deployment file, in bytes (the shipped examples are under 4 KiB). */
  fileBytes: 1024 * 1024,
  /** Longest deployment `name` and strategy `id`, in characters. */
  nameChars: 64,
  /** Longest string value or key anywhere else, in characters (PATH_MAX on Linux). */
  stringChars: 4_096,
});

/** The limit of a key path as the schema reports it (`['strategies', 0, 'exits', 'timeStop']`). */
export function limitAt(path: readonly (string | number)[]): NumericLimit | undefined {
  const key = path
    .map((p) => (typeof p === 'number' ? '[]' : `.${p}`))
    .join('')
    .replace(/^\./, '');
  return Object.hasOwn(CONFIG_LIMITS, key) ? CONFIG_LIMITS[key as LimitedKey] : undefined;
}

/** "1d", "30s", "250ms": the largest unit that divides `ms` exactly. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of [
    ['d', DAY_MS],
    ['h', HOUR_MS],
    ['m', MINUTE_MS],
    ['s', SECOND_MS],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

const plain = (n: number): string => (Number.isSafeInteger(n) ? String(n) : n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 }));

/** The range in words, as errors and the docs table say it. */
export function describeRange(l: NumericLimit): string {
  switch (l.kind) {
    case 'integer':
      return `an integer from ${plain(l.min)} to ${plain(l.max)}`;
    case 'number':
      return `a number from ${plain(l.min)} to ${plain(l.max)}`;
    case 'duration':
      return `a duration from ${formatDuration(l.min)} to ${formatDuration(l.max)}`;
    case 'sol':
      return `a SOL amount from ${plain(l.min)} to ${plain(l.max)} with at most 9 decimals, such as "0.5"`;
    case 'multiple':
      return `a price multiple above ${plain(l.min)} and at most ${plain(l.max)}, such as "1.5"`;
    case 'speed':
      return `a multiple of real time from ${plain(l.min)} to ${plain(l.max)}, or "max"`;
  }
}
