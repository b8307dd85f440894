/**
 * The process shell around a daemon (fastify's app/server split): it owns the signals and the
 * terminal. SIGHUP reloads the deployment files and prints the diff; SIGINT and SIGTERM drain
 * every deployment and exit 0; a second one exits at once with 130.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DestinationStream } from 'pino';
import { createLogger, createRedactor, describeError, type Logger } from '../../core/index.js';
import { createDeployment } from '../../runtime/handle/create-deployment.js';
import { formatShutdownReport, formatSummary } from '../../runtime/shell/status-panel.js';
import { drainOrExit, flush, guardProcessExit } from '../../runtime/shell/run-shell.js';
import { createDashboard } from '../dashboard/dashboard-routes.js';
import { createNotifyHub } from '../notify/notify-hub.js';
import { createTelegramControl, type TelegramControl } from '../notify/telegram-control.js';
import { deploymentNotifyConfig, loadNotifyFile } from '../notify/notify-file.js';
import type { NotifyConfig } from '../../config/schema.js';
import { createServiceMetrics } from './service-metrics.js';
import { createSharedEndpoints } from './shared-endpoints.js';
import { deploymentLog } from './deployment-log.js';
import { simulatorMetrics } from './simulator-metrics.js';
import { mb, type MemoryReader } from './memory-budget.js';
import { FRONT_STALE_MS } from './front/front-thread.js';
import { formatReloadDiff, startDaemon, type RunningDaemon } from './run-daemon.js';

export interface DaemonShellOptions {
  readonly paths: readonly string[];
  readonly listen?: string;
  readonly tokenEnv?: string;
  readonly dataDir: string;
  /** Names of live deployments the operator confirms (live rails, like `run --confirm NAME`). */
  readonly confirmLive?: readonly string[];
  readonly speed?: number | 'max';
  /** The daemon's level, and the default of every deployment whose file sets no `telemetry.logLevel`. */
  readonly logLevel?: string;
  /** Where log lines go (tests capture them; default stderr). */
  readonly logDestination?: DestinationStream;
  /** Backtest reports the dashboard lists. */
  readonly reportsDir?: string;
  /** Daemon-wide notifications file (a `notify:` block, docs/notifications.md). */
  readonly notifyFile?: string;
  /** Memory ceiling in bytes (`--memory-limit`): the set is refused when it cannot fit, and RSS near it turns /readyz 503 and notifies. */
  readonly memoryLimitBytes?: number;
  /** The process's memory as the watch reads it (tests: a fake reader). */
  readonly memoryReader?: MemoryReader;
  /** Memory sampling period (default 5 s). */
  readonly memoryEveryMs?: number;
  /** How old a `/metrics` render a scrape may get (default 1 000 ms; 0 renders at every scrape). */
  readonly metricsMaxAgeMs?: number;
  /** How old an unchanged slot's row of `/api/deployments` may be (default 1 000 ms; 0 rebuilds per request). */
  readonly listMaxAgeMs?: number;
  readonly out?: (text: string) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Resolves to stop the daemon (tests); signals stop it too. */
  readonly signal?: AbortSignal;
  /** Called once it listens (tests read the URL). */
  readonly onReady?: (daemon: RunningDaemon) => void;
}

const version = (): string => {
  try {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
};

/** Runs the daemon until SIGINT/SIGTERM or `signal`; returns the exit status. */
export async function runDaemonShell(o: DaemonShellOptions): Promise<number> {
  const out = o.out ?? ((t: string) => void process.stdout.write(t));
  const redactor = createRedactor();
  const log: Logger = createLogger({
    redactor,
    level: o.logLevel ?? 'info',
    name: 'daemon',
    ...(o.logDestination ? { destination: o.logDestination } : process.stderr.isTTY ? { pretty: true } : {}),
  });
  const confirm = new Set(o.confirmLive ?? []);
  const serviceMetrics = createServiceMetrics();
  const endpoints = createSharedEndpoints({
    log,
    redactor,
    telemetry: serviceMetrics,
    ...(o.speed !== undefined ? { speed: o.speed } : {}),
    base: (loaded) => ({
      log: deploymentLog(log, loaded),
      ...(confirm.has(loaded.deployment.name) ? { confirmation: { confirm: loaded.deployment.name } } : {}),
      ...(o.env ? { env: o.env } : {}),
    }),
  });
  // Read before the exit guard and the signal handlers: a refused file ends the command with its coded error, nothing else.
  const env = o.env ?? process.env;
  const daemonNotify = o.notifyFile ? loadNotifyFile(o.notifyFile, env) : undefined;
  for (const s of daemonNotify?.secrets ?? []) redactor.add(s);
  let chat: TelegramControl | undefined;
  const restoreExit = guardProcessExit();
  let daemon: RunningDaemon | undefined;
  const stopped = new AbortController();
  const onStop = drainOrExit({ out, log, restoreExit }, (name) => {
    out(`\n${name}: draining every deployment; ${name} again exits at once\n`);
    stopped.abort();
  });
  const onHup = (): void => {
    if (!daemon) return;
    out('SIGHUP: reloading the deployment files\n');
    daemon.reload().then(
      (diff) => out(`${formatReloadDiff(diff)}\n`),
      (e: unknown) => out(`reload failed: ${describeError(e)}\n`),
    );
  };
  const onInt = (): void => onStop('SIGINT');
  const onTerm = (): void => onStop('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onHup);
  o.signal?.addEventListener('abort', () => stopped.abort(), { once: true });
  const dashboard = createDashboard(o.reportsDir ? { reportsDir: resolve(o.reportsDir) } : {});
  const notifyOfStart = new WeakMap<object, NotifyConfig | undefined>();
  const hub = createNotifyHub({
    ...(daemonNotify ? { daemonConfig: daemonNotify.config } : {}),
    idPrefix: dashboard.boot,
    redactor,
    log,
    deploymentConfig: (name) => {
      // Read once per start of the deployment (a reload of a changed file starts it again), not per
      // message: at a hundred deployments a stat of the file per notification cost the event loop
      // more than the notifications themselves.
      const slot = daemon?.supervisor.get(name);
      const started = slot?.handle;
      if (started && notifyOfStart.has(started)) return notifyOfStart.get(started);
      const config = deploymentNotifyConfig(slot?.file, env, redactor);
      if (started) notifyOfStart.set(started, config);
      return config;
    },
  });
  let memoryNotices = 0;
  try {
    daemon = await startDaemon({
      plugins: [dashboard.plugin],
      metricsExtensions: [hub.metrics, serviceMetrics.metrics, simulatorMetrics(() => endpoints.simulators())],
      paths: o.paths,
      metricsMaxAgeMs: o.metricsMaxAgeMs ?? 1_000,
      listMaxAgeMs: o.listMaxAgeMs ?? 1_000,
      front: { staleMs: FRONT_STALE_MS },
      factory: createDeployment,
      deps: endpoints,
      dataDir: resolve(o.dataDir),
      log,
      version: version(),
      ...(o.listen ? { listen: o.listen } : {}),
      ...(o.tokenEnv ? { tokenEnv: o.tokenEnv } : {}),
      ...(o.env ? { env: o.env } : {}),
      ...(o.memoryLimitBytes !== undefined
        ? {
            memory: {
              limitBytes: o.memoryLimitBytes,
              estimate: o.speed !== undefined ? { speed: o.speed } : {},
              ...(o.memoryReader ? { read: o.memoryReader } : {}),
              ...(o.memoryEveryMs !== undefined ? { everyMs: o.memoryEveryMs } : {}),
              onChange: (high: boolean, r: { rssBytes: number }, limit: number) =>
                hub.daemonNotice({
                  key: `memory-${(memoryNotices += 1)}-${high ? 'high' : 'ok'}`,
                  event: 'memory',
                  text: high
                    ? `daemon: memory high: RSS ${mb(r.rssBytes)} of the ${mb(limit)} limit; not ready until it drops below 80 %`
                    : `daemon: memory back to normal: RSS ${mb(r.rssBytes)} of the ${mb(limit)} limit`,
                  data: { code: 'RUNTIME_DAEMON_MEMORY_HIGH', high, rssBytes: r.rssBytes, limitBytes: limit },
                }),
            },
          }
        : {}),
    });
    const t = daemon.token.source;
    out(
      `chainpilot daemon: ${daemon.supervisor.list().length} deployment(s); control API on ${daemon.url}; API token from ${t.kind === 'env' ? `$${t.name}` : t.path}; dashboard at ${daemon.url}/\n`,
    );
    out(`${formatReloadDiff(daemon.initial)}\n`);
    hub.attach(daemon);
    const tg = daemonNotify?.config.telegram;
    if (tg?.control) {
      chat = createTelegramControl({
        botToken: tg.botToken,
        apiRoot: tg.baseUrl,
        allowChatIds: [tg.chatId, ...tg.allowChatIds],
        allowUserIds: tg.allowUserIds,
        view: daemon,
        log: log.child({ part: 'telegram' }),
        redactor,
      });
      // a failed start is logged and counted by the control itself; the daemon runs on without it
      chat.start().catch(() => undefined);
    }
    o.onReady?.(daemon);
    if (!stopped.signal.aborted) await new Promise<void>((r) => stopped.signal.addEventListener('abort', () => r(), { once: true }));
    await chat?.stop();
    const reports = await daemon.stop();
    await endpoints.stop();
    await hub.stop();
    for (const r of reports) {
      out(`${r.name}: ${formatShutdownReport(r)}\n${redactor.redact(formatSummary(r.summary))}\n`);
    }
    return 0;
  } finally {
    await chat?.stop().catch((e: unknown) => log.warn({ err: describeError(e) }, 'stopping the Telegram control failed'));
    process.removeListener('SIGINT', onInt);
    process.removeListener('SIGTERM', onTerm);
    process.removeListener('SIGHUP', onHup);
    restoreExit();
    flush(log);
  }
}
