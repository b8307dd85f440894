/**
 * A real daemon for tests: the real deployment factory over shared endpoints, its control server on
 * a free loopback port, data under `<dir>/data`, the API token in its environment and silent logs.
 * Shared by the daemon tests (test/daemon) and the daemon end-to-end tests (test/e2e).
 */
import { join } from 'node:path';
import { createRedactor, silentLogger } from '../../src/core/index.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import { createSharedEndpoints, type SharedEndpoints, type SharedEndpointsOptions } from '../../src/service/daemon/shared-endpoints.js';

type ExtraDaemonOptions = Omit<Partial<DaemonOptions>, 'paths' | 'factory' | 'deps' | 'listen' | 'dataDir' | 'env' | 'version' | 'log'>;

export interface TestDaemonOptions {
  /** Deployment files are read from `paths` (default `[dir]`); the daemon's data goes to `<dir>/data`. */
  readonly dir: string;
  readonly paths?: readonly string[];
  /** The API token (`CHAINPILOT_API_TOKEN`). */
  readonly token: string;
  /** More environment beside `process.env` and the token (remote API keys). */
  readonly env?: Readonly<Record<string, string>>;
  /** Shared-endpoint options beside the silent logger (default redactor: a fresh one). */
  readonly endpoints?: Omit<SharedEndpointsOptions, 'log'>;
  /** Daemon options beside the ones above (backoff, metrics extensions), or a function of the shared endpoints giving them. */
  readonly daemon?: ExtraDaemonOptions | ((endpoints: SharedEndpoints) => ExtraDaemonOptions);
}

export interface TestDaemon {
  readonly daemon: RunningDaemon;
  readonly endpoints: SharedEndpoints;
}

/** Starts the shared endpoints and a daemon over them. */
export async function startTestDaemon(o: TestDaemonOptions): Promise<TestDaemon> {
  const endpoints = createSharedEndpoints({ redactor: createRedactor(), ...o.endpoints, log: silentLogger() });
  try {
    const daemon = await startDaemon({
      paths: o.paths ?? [o.dir],
      factory: createDeployment,
      deps: endpoints,
      listen: '127.0.0.1:0',
      dataDir: join(o.dir, 'data'),
      env: { ...process.env, CHAINPILOT_API_TOKEN: o.token, ...o.env },
      version: 'test',
      log: silentLogger(),
      ...(typeof o.daemon === 'function' ? o.daemon(endpoints) : o.daemon),
    });
    return { daemon, endpoints };
  } catch (e) {
    await endpoints.stop(); // the caller gets no handle to stop them with
    throw e;
  }
}

/** Stops the daemon (5 s drain), then the shared endpoints; either may be missing when a start failed. */
export async function stopTestDaemon(t: { readonly daemon?: RunningDaemon | undefined; readonly endpoints?: SharedEndpoints | undefined }): Promise<void> {
  await t.daemon?.stop({ drainMs: 5_000 });
  await t.endpoints?.stop();
}
