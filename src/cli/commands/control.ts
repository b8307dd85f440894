/**
 * Operator commands against a running daemon's control API: `status`, `kill`, `unkill`, `pause`,
 * `resume`, `reload`, and the manual actions `close`, `enter`, `cancel` (journaled with who and
 * why). Each is a thin shell over src/cli/daemon-api.ts.
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
  by?: string;
}

interface ManualOpts extends ApiOpts {
  strategy?: string;
  shareBps?: string;
  sol?: string;
}

/** Who runs the command, for the journal: `--by`, else `cli:<user>`. */
const whoOf = async (o: ApiOpts): Promise<string> => o.by ?? `cli:${(await import('node:os')).userInfo().username}`;
const manualOptions = (c: Command): Command =>
  withApiOptions(c).option('--reason <text>', 'why (journaled with the decision)').option('--by <who>', 'who asks (journaled; default cli:<user>)');

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
    ['kill', "kill switch on for a deployment: no new buys; persisted in the deployment's store, paper and live alike (survives restarts)"],
    ['unkill', 'kill switch off for a deployment (persisted in its store, paper and live alike)'],
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
  manualOptions(
    program
      .command('close')
      .description('sell a position of a deployment: all of it, or a share (--share-bps)')
      .argument('<name>', 'deployment name')
      .argument('<mint>', 'token mint of the position')
      .option('--share-bps <bps>', 'share to sell in basis points, 1..10000 (default 10000: all)')
      .option('--strategy <id>', 'the strategy holding it, when several do'),
  ).action(async (name: string, mint: string, o: ManualOpts) => {
    const body = {
      mint,
      ...(o.shareBps !== undefined ? { fractionBps: Number(o.shareBps) } : {}),
      ...(o.strategy ? { strategyId: o.strategy } : {}),
      ...(o.reason ? { reason: o.reason } : {}),
      by: await whoOf(o),
    };
    const r = (await (await daemonApi(apiOf(o))).post(`/api/deployments/${encodeURIComponent(name)}/positions/close`, body)) as { intentId: string };
    out(`${name}: close of ${mint} placed as intent ${r.intentId}\n`);
  });
  manualOptions(
    program
      .command('enter')
      .description('force a buy on a deployment, through its risk gate (a denial is printed with its code)')
      .argument('<name>', 'deployment name')
      .argument('<mint>', 'token mint to buy')
      .requiredOption('--sol <amount>', 'SOL to spend, for example 0.1')
      .option('--strategy <id>', 'the strategy whose exit rules the position gets, when there are several'),
  ).action(async (name: string, mint: string, o: ManualOpts) => {
    const { parseSolToLamports } = await import('../../core/decimal.js');
    const { ChainpilotError } = await import('../../core/errors.js');
    const spend = parseSolToLamports(o.sol ?? '');
    if (spend === undefined || spend <= 0n)
      throw new ChainpilotError('CLI_BAD_OPTION', `--sol ${o.sol ?? ''}: give a positive SOL amount such as 0.1`, { retry: 'not_retryable' });
    const body = {
      mint,
      spendLamports: spend.toString(),
      ...(o.strategy ? { strategyId: o.strategy } : {}),
      ...(o.reason ? { reason: o.reason } : {}),
      by: await whoOf(o),
    };
    const r = (await (await daemonApi(apiOf(o))).post(`/api/deployments/${encodeURIComponent(name)}/entries`, body)) as {
      intentId: string;
      waitsForPrice?: boolean;
    };
    out(`${name}: buy of ${mint} placed as intent ${r.intentId}\n`);
    if (r.waitsForPrice === true)
      out(
        `${name}: no price of ${mint} observed yet: joined its price room; the fill waits for the first price (paper: up to 10 s of run clock, then rejected with PAPER_NO_PRICE; chainpilot status or the dashboard shows the outcome)\n`,
      );
  });
  manualOptions(
    program
      .command('cancel')
      .description('cancel an intent of a deployment that has not left the process yet')
      .argument('<name>', 'deployment name')
      .argument('<intent>', 'intent id (chainpilot status --json, or the dashboard)'),
  ).action(async (name: string, intent: string, o: ManualOpts) => {
    const body = { ...(o.reason ? { reason: o.reason } : {}), by: await whoOf(o) };
    await (await daemonApi(apiOf(o))).post(`/api/deployments/${encodeURIComponent(name)}/intents/${encodeURIComponent(intent)}/cancel`, body);
    out(`${name}: intent ${intent} cancelled\n`);
  });
  withApiOptions(program.command('reload').description('make a running daemon re-read its deployment files (as SIGHUP does) and print the diff')).action(
    async (o: ApiOpts) => {
      out(`${JSON.stringify(await (await daemonApi(apiOf(o))).post('/api/reload'), null, 2)}\n`);
    },
  );
}
