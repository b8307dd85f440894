/**
 * Live mode's safety rails: each refusal is a coded error naming the field and the fix, raised
 * before anything starts (no journal file is created). The network check runs against real RPCs:
 * the embedded simulator's, reached as a remote endpoint.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { isChainpilotError, silentLogger } from '../../src/core/index.js';
import { parseDeployment } from '../../src/config/index.js';
import { checkLiveNetwork, GENESIS_HASHES, type NetworkProbe } from '../../src/runtime/live/live-network.js';
import { checkLiveDeployment } from '../../src/runtime/live/live-rails.js';
import { runLive, type RunLiveOptions } from '../../src/runtime/shell/run-live.js';
import { ledgerServices } from '../../src/sim/ledger/index.js';
import { startSimulator } from '../../src/sim/start-simulator.js';
import { remoteEndpointLines } from './support/live-sim-remote.js';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const LIMITS = [
  'risk:',
  '  maxTradeSol: "0.2"',
  '  maxOpenPositions: 3',
  '  maxExposureSol: "1"',
  '  dailyLossLimitSol: "1"',
  'live:',
  '  maxTradeSpendSol: "0.25"',
  '  maxDaySpendSol: "2"',
];

/** Writes a deployment made of `lines` (a complete valid live deployment unless overridden). */
function deployment(parts: { head?: string[]; endpoints?: string[]; wallet?: string[] | null; limits?: string[] } = {}): { file: string; store: string } {
  dir = mkdtempSync(join(tmpdir(), 'cp-live-rails-'));
  const walletPath = join(dir, 'wallet.json');
  writeNewKeypairFile(walletPath);
  const store = join(dir, 'journal.sqlite');
  const lines = [
    'version: 1',
    'name: rails',
    ...(parts.head ?? ['network: simulator']),
    ...(parts.endpoints ?? ['endpoints:', '  simulator: { seed: 3, speed: 60 }']),
    ...(parts.wallet === null ? [] : (parts.wallet ?? ['wallet:', `  keypairPath: ${walletPath}`])),
    'strategies:',
    '  - use: graduation-sniper',
    ...(parts.limits ?? LIMITS),
    'store:',
    `  path: ${store}`,
    'telemetry:',
    '  logLevel: silent',
    '',
  ];
  const file = join(dir, 'd.yaml');
  writeFileSync(file, lines.join('\n'));
  return { file, store };
}

async function refusal(o: Omit<RunLiveOptions, 'log' | 'out'>): Promise<{ code: string; message: string }> {
  try {
    await runLive({ ...o, log: silentLogger(), out: () => undefined, durationMs: 1 });
  } catch (e) {
    if (isChainpilotError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected runLive to refuse');
}

describe('live mode safety rails', () => {
  it('refuses without --live and names both ways to confirm', async () => {
    const { file, store } = deployment();
    const e = await refusal({ file });
    expect(e.code).toBe('RUNTIME_LIVE_NOT_CONFIRMED');
    expect(e.message).toBe(
      'live mode refused: live trading needs the --live flag (or mode: live in the deployment plus --confirm <deployment name>); to trade without risk use `chainpilot paper`',
    );
    expect(existsSync(store)).toBe(false);
  });

  it('with mode: live, refuses a --confirm that does not name the deployment, and accepts the right one', async () => {
    const { file } = deployment({ head: ['mode: live', 'network: simulator'] });
    const e = await refusal({ file, confirm: 'other' });
    expect(e).toEqual({
      code: 'RUNTIME_LIVE_NOT_CONFIRMED',
      message: "live mode refused: mode: live needs --confirm rails (the deployment's name) or --live; --confirm named another deployment",
    });
    const { deployment: d } = parseDeployment(
      'version: 1\nname: rails\nmode: live\nnetwork: simulator\nwallet: { keypairPath: w.json }\nstrategies: [{ use: graduation-sniper }]\n' +
        LIMITS.join('\n') +
        '\n',
      'd.yaml',
      { env: {} },
    );
    expect(() => checkLiveDeployment(d, { confirm: 'rails' })).not.toThrow();
    expect(() => checkLiveDeployment(d, {})).toThrow(/needs --confirm rails/);
  });

  it('refuses a deployment that says mode: paper even with --live', async () => {
    const { file } = deployment({ head: ['mode: paper', 'network: simulator'] });
    const e = await refusal({ file, live: true });
    expect(e.code).toBe('RUNTIME_LIVE_NOT_CONFIRMED');
    expect(e.message).toContain('rails says mode: paper; set mode: live (or remove mode)');
  });

  it('refuses without a wallet and says how to make one', async () => {
    const { file, store } = deployment({ wallet: null });
    const e = await refusal({ file, live: true });
    expect(e.code).toBe('RUNTIME_LIVE_NO_WALLET');
    expect(e.message).toBe(
      'live mode refused: no wallet; set wallet.keypairPath to a keypair file (make one with `chainpilot wallet new --out FILE`) or wallet.secretKey: ${ENV_VAR}',
    );
    expect(existsSync(store)).toBe(false);
  });

  it('refuses with risk limits or executor caps missing and lists every missing field at once', async () => {
    const { file, store } = deployment({ limits: ['risk:', '  maxTradeSol: "0.2"', '  maxExposureSol: "1"', 'live:', '  maxTradeSpendSol: "0.25"'] });
    const e = await refusal({ file, live: true });
    expect(e.code).toBe('RUNTIME_LIVE_LIMITS_MISSING');
    expect(e.message).toBe(
      'live mode refused: live mode needs explicit limits; set risk.maxOpenPositions, risk.dailyLossLimitSol, live.maxDaySpendSol in the deployment',
    );
    expect(existsSync(store)).toBe(false);
  });

  it('refuses without a network, and with a cluster network on the embedded simulator', async () => {
    const a = deployment({ head: [] });
    expect(await refusal({ file: a.file, live: true })).toMatchObject({
      code: 'RUNTIME_LIVE_NETWORK_MISMATCH',
      message: expect.stringContaining('network is not set; add network: simulator | mainnet-beta | devnet | testnet') as unknown,
    });
    const b = deployment({ head: ['network: mainnet-beta'] });
    expect(await refusal({ file: b.file, live: true })).toMatchObject({
      code: 'RUNTIME_LIVE_NETWORK_MISMATCH',
      message: expect.stringContaining('network: mainnet-beta but the endpoints are the embedded simulator') as unknown,
    });
  });

  it('refuses remote endpoints without rpcUrl and swapUrl', async () => {
    const { file } = deployment({
      head: ['network: devnet'],
      endpoints: ['endpoints:', '  remote:', '    baseUrl: https://api.example.invalid', '    datastreamUrl: wss://ws.example.invalid', '    apiKey: k'],
    });
    const e = await refusal({ file, live: true });
    expect(e.code).toBe('RUNTIME_LIVE_ENDPOINTS_MISSING');
    expect(e.message).toBe('live mode refused: endpoints.remote.rpcUrl and endpoints.remote.swapUrl must be set to send transactions with remote endpoints');
  });

  it('checks the network against the RPC: network mainnet-beta on a simulator RPC is refused before the journal is opened', async () => {
    const key = 'rails-remote-key-5d1e';
    const sim = await startSimulator({ seed: 4, speed: 60, apiKey: key, services: [ledgerServices()] });
    try {
      const { file, store } = deployment({
        head: ['network: mainnet-beta'],
        endpoints: remoteEndpointLines(sim.urls),
      });
      const e = await refusal({ file, live: true, env: { K: key } });
      expect(e.code).toBe('RUNTIME_LIVE_NETWORK_MISMATCH');
      expect(e.message).toBe(
        'live mode refused: network: mainnet-beta but the RPC is the chainpilot simulator (solana-core 2.2.0-chainpilot-sim); set network: simulator to rehearse',
      );
      expect(e.message).not.toContain(key);
      expect(existsSync(store)).toBe(false);
    } finally {
      await sim.stop();
    }
  });

  it('accepts only the genesis hash of the configured cluster, and refuses an RPC that cannot say', async () => {
    const probe = (answers: Record<string, unknown>): NetworkProbe => ({
      call: (method) => (method in answers ? Promise.resolve(answers[method]) : Promise.reject(new Error(`method ${method} not found`))),
    });
    const devnetRpc = probe({ getVersion: { 'solana-core': '2.1.14' }, getGenesisHash: GENESIS_HASHES.devnet });
    await expect(checkLiveNetwork(devnetRpc, 'devnet')).resolves.toBeUndefined();
    await expect(checkLiveNetwork(devnetRpc, 'mainnet-beta')).rejects.toThrow(
      `network: mainnet-beta but the RPC's genesis hash is ${GENESIS_HASHES.devnet} (devnet)`,
    );
    await expect(checkLiveNetwork(devnetRpc, 'simulator')).rejects.toThrow(
      'network: simulator but the RPC reports solana-core "2.1.14", not the chainpilot simulator',
    );
    await expect(checkLiveNetwork(probe({ getVersion: { 'solana-core': '2.1.14' } }), 'mainnet-beta')).rejects.toThrow(
      'the RPC did not answer getGenesisHash (Error: method getGenesisHash not found), so network: mainnet-beta cannot be verified',
    );
  });
});
