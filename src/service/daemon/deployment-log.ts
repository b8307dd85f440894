/**
 * The logger a deployment of the daemon writes through: the daemon's logger (its `--log-level` is
 * the default), at the deployment's own `telemetry.logLevel` when its file sets one. Lines go to
 * the daemon's destination and redactor either way; only the threshold is the deployment's.
 */
import type { Logger } from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';

/** `daemonLog`, or a child of it at the level the deployment's file sets (lower or higher). */
export function deploymentLog(daemonLog: Logger, loaded: LoadedDeployment): Logger {
  if (!loaded.has(['telemetry', 'logLevel'])) return daemonLog;
  return daemonLog.child({}, { level: loaded.deployment.telemetry.logLevel });
}
