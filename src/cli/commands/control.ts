/**
 * Operator commands against a running daemon's control API: `status`, `kill`, `unkill`, `pause`,
 * `resume`, `reload`. Each is a thin shell over src/cli/daemon-api.ts.
 */
import type { Command } from 'commander';
import type { DaemonApiOptions } from '../daemon-api.js';

/** Kept here (not imported) so that registering the commands loads nothing. */
const DEFAULT_API_URL = 'http://127.0.0.1:8790';
const DEFAULT_DATA_DIR = '.chainpilot';
const daemonApi = async (o: DaemonApiOptions) => (await import('../daemon-api.js')).daemonApi(o);

interface ApiOpts {
  url?: string;
  tokenEnv?: string;
  dataDir?: string;
  json?: boolean;
  reason?: string;
}

const withApiOptions = (c: Command): Command =>
  c
    .option('--url <url>', `control API of the daemon (default ${DEFAULT_API_URL})`)
    .option('--token-env <name>', 'environment variable that holds the API token (default CHAINPILOT_API_TOKEN)')
    .option('--data-dir <dir>', `the daemon's data directory, where it wrote api-token when no token was set (default ${DEFAULT_DATA_DIR})`);

const apiOf = (o: ApiOpts): DaemonApiOptions => ({
  ...(o.url ? { url: o.url } : {}),
  ...(o.tokenEnv ? { tokenEnv: o.tokenEnv } : {}),
  ...(o.dataDir ? { dataDir: o.dataDir } : {}),
});
const out = (t: string): void => void process.stdout.write(t);

interface ListBody {
  deployments: {
    name: string;
    mode: string;
    state: string;
    ready: boolean;
    restarts: number;
    equityLamports: string | null;
    openPositions: number | null;
    cause: { code: string; message: string } | null;
  }[];
}

/** The deployments as a table a person can read. */
export function formatStatus(body: ListBody): string {
  const rows = body.deployments.map((d) => [
    d.name,
    d.mode,
    d.state,
    d.ready ? 'yes' : 'no',
    d.equityLamports === null ? '-' : `${(Number(d.equityLamports) / 1e9).toFixed(4)} SOL`,
    d.openPositions === null ? '-' : String(d.openPositions),
    String(d.restarts),
    d.cause ? d.cause.code : '',
  ]);
  const head = ['DEPLOYMENT', 'MODE', 'STATE', 'READY', 'EQUITY', 'OPEN', 'RESTARTS', 'CAUSE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

export function registerControlCommands(program: Command): void {
  withApiOptions(program.command('status').description('show the deployments of a running daemon').option('--json', 'print the API answer as JSON')).action(
    async (o: ApiOpts) => {
      const body = (await (await daemonApi(apiOf(o))).get('/api/deployments')) as ListBody;
      out(o.json ? `${JSON.stringify(body, null, 2)}\n` : `${formatStatus(body)}\n`);
    },
  );
  for (const [verb, help] of [
    ['kill', 'kill switch on for a deployment: no new buys (persisted for live deployments)'],
    ['unkill', 'kill switch off for a deployment'],
    ['pause', 'pause entries of a deployment (exits keep working)'],
    ['resume', 'resume entries of a deployment'],
  ] as const) {
    withApiOptions(program.command(verb).description(help).argument('<name>', 'deployment name').option('--reason <text>', 'why (logged and shown)')).action(
      async (name: string, o: ApiOpts) => {
        const body = (await (await daemonApi(apiOf(o))).post(`/api/deployments/${encodeURIComponent(name)}/${verb}`, o.reason ? { reason: o.reason } : {})) as {
          state: string;
        };
        out(`${name}: ${body.state}\n`);
      },
    );
  }
  withApiOptions(program.command('reload').description('make a running daemon re-read its deployment files (as SIGHUP does) and print the diff')).action(
    async (o: ApiOpts) => {
      out(`${JSON.stringify(await (await daemonApi(apiOf(o))).post('/api/reload'), null, 2)}\n`);
    },
  );
}
