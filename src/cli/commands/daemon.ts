/** `chainpilot daemon FILE|DIR... [--listen host:port]`: many deployments in one process, with a control API. */
import type { Command } from 'commander';
import { logLevelOption, speedOption as speed } from '../options.js';

interface DaemonOpts {
  listen?: string;
  tokenEnv?: string;
  dataDir: string;
  confirmLive?: string;
  speed?: number | 'max';
  logLevel?: string;
  reportsDir?: string;
  notify?: string;
  memoryLimit?: string;
}

export function registerDaemonCommand(program: Command): void {
  program
    .command('daemon')
    .description(
      'run every deployment file given (a directory: each *.yaml in it) in one process, with a control API, /metrics and reload on SIGHUP; SIGINT/SIGTERM drain and exit',
    )
    .argument('<paths...>', 'deployment files or directories')
    .option('--listen <host:port>', 'control API address (default 127.0.0.1:8790; a non-loopback address needs an API token)')
    .option('--token-env <name>', 'environment variable holding the API token (default CHAINPILOT_API_TOKEN; without one a token is generated into --data-dir)')
    .option(
      '--data-dir <dir>',
      'directory for the generated API token, and the stores of paper deployments whose file sets no store.path (stores/<name>.db)',
      '.chainpilot',
    )
    .option('--confirm-live <names>', 'comma-separated names of deployments with mode: live that may trade live')
    .option('--speed <n>', 'speed of every embedded simulator: multiple of real time, or max', speed)
    .option('--log-level <level>', 'daemon log level: trace, debug, info, warn, error or silent', logLevelOption, 'info')
    .option('--notify <file>', 'daemon-wide notifications: a YAML file with a notify: block (docs/notifications.md)')
    .option(
      '--memory-limit <size>',
      'memory ceiling (2GB, 1536MB): a set of deployments estimated above it is refused; RSS at 90 % of it turns /readyz 503 and notifies (docs/daemon.md, "Memory budget")',
    )
    .option('--reports-dir <dir>', 'directory of backtest reports the dashboard lists (*.html and */report.html)')
    .action(async (paths: string[], o: DaemonOpts) => {
      const { checkInDirOption, prepareDirOption } = await import('../cli-paths.js');
      // checked before use: a data dir that cannot be created is refused at once, coded
      const dataDir = prepareDirOption('--data-dir', o.dataDir, 0o700);
      if (o.reportsDir !== undefined) checkInDirOption('--reports-dir', o.reportsDir);
      const { runDaemonShell } = await import('../../service/daemon/daemon-shell.js');
      const { parseMemorySize } = await import('../../service/daemon/memory-budget.js');
      const memoryLimitBytes = o.memoryLimit !== undefined ? parseMemorySize(o.memoryLimit) : undefined;
      process.exitCode = await runDaemonShell({
        paths,
        dataDir,
        ...(o.listen ? { listen: o.listen } : {}),
        ...(o.tokenEnv ? { tokenEnv: o.tokenEnv } : {}),
        ...(o.confirmLive
          ? {
              confirmLive: o.confirmLive
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
            }
          : {}),
        ...(o.speed !== undefined ? { speed: o.speed } : {}),
        ...(o.logLevel ? { logLevel: o.logLevel } : {}),
        ...(o.reportsDir ? { reportsDir: o.reportsDir } : {}),
        ...(o.notify ? { notifyFile: o.notify } : {}),
        ...(memoryLimitBytes !== undefined ? { memoryLimitBytes } : {}),
      });
    });
}
