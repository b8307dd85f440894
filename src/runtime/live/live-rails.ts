/**
 * Safety rails of live mode: checks that run before anything is started, connected or signed.
 * Each refusal is a coded error whose message names the field (or flag) and the fix.
 */
import { ChainpilotError } from '../../core/index.js';
import type { Deployment } from '../../config/index.js';
import type { LiveNetwork } from './live-network.js';

/** How the user confirmed live trading: the `--live` flag, or `mode: live` plus `--confirm NAME`. */
export interface LiveConfirmation {
  /** `--live` was passed. */
  readonly live?: boolean;
  /** `--confirm NAME` was passed; must equal the deployment's `name` when `mode: live` is used. */
  readonly confirm?: string;
}

const refuse = (
  code:
    | 'RUNTIME_LIVE_NOT_CONFIRMED'
    | 'RUNTIME_LIVE_NO_WALLET'
    | 'RUNTIME_LIVE_LIMITS_MISSING'
    | 'RUNTIME_LIVE_NETWORK_MISMATCH'
    | 'RUNTIME_LIVE_ENDPOINTS_MISSING',
  message: string,
  context: Record<string, string | number | boolean | null | undefined> = {},
): ChainpilotError => new ChainpilotError(code, `live mode refused: ${message}`, { retry: 'not_retryable', context });

/**
 * Checks what can be checked without the network, in this order: confirmation, network and
 * endpoints, wallet, risk limits, executor caps. Throws the first refusal; a refusal about limits
 * lists every missing field at once. Returns the deployment's network (to check against the RPC).
 */
export function checkLiveDeployment(d: Deployment, c: LiveConfirmation): LiveNetwork {
  if (d.mode === 'paper') {
    throw refuse(
      'RUNTIME_LIVE_NOT_CONFIRMED',
      `${d.name} says mode: paper; set mode: live (or remove mode) in the deployment to trade it live, or run it with \`chainpilot paper\``,
      { field: 'mode' },
    );
  }
  if (c.live !== true) {
    if (d.mode !== 'live') {
      throw refuse(
        'RUNTIME_LIVE_NOT_CONFIRMED',
        'live trading needs the --live flag (or mode: live in the deployment plus --confirm <deployment name>); to trade without risk use `chainpilot paper`',
        { field: '--live' },
      );
    }
    if (c.confirm !== d.name) {
      throw refuse(
        'RUNTIME_LIVE_NOT_CONFIRMED',
        `mode: live needs --confirm ${d.name} (the deployment's name) or --live${c.confirm === undefined ? '' : `; --confirm named another deployment`}`,
        { field: '--confirm' },
      );
    }
  }
  if (d.network === undefined) {
    throw refuse(
      'RUNTIME_LIVE_NETWORK_MISMATCH',
      'network is not set; add network: simulator | mainnet-beta | devnet | testnet to the deployment (it is checked against the RPC before trading)',
      { field: 'network' },
    );
  }
  const remote = d.endpoints.remote;
  if (!remote && d.network !== 'simulator') {
    throw refuse(
      'RUNTIME_LIVE_NETWORK_MISMATCH',
      `network: ${d.network} but the endpoints are the embedded simulator; set network: simulator to rehearse, or configure endpoints.remote with rpcUrl and swapUrl`,
      { field: 'network', network: d.network },
    );
  }
  if (remote && (!remote.rpcUrl || !remote.swapUrl)) {
    const missing = [!remote.rpcUrl ? 'endpoints.remote.rpcUrl' : undefined, !remote.swapUrl ? 'endpoints.remote.swapUrl' : undefined].filter(
      (x) => x !== undefined,
    );
    throw refuse('RUNTIME_LIVE_ENDPOINTS_MISSING', `${missing.join(' and ')} must be set to send transactions with remote endpoints`, {
      fields: missing.join(', '),
    });
  }
  if (!d.wallet || (d.wallet.keypairPath === undefined && d.wallet.secretKey === undefined)) {
    throw refuse(
      'RUNTIME_LIVE_NO_WALLET',
      'no wallet; set wallet.keypairPath to a keypair file (make one with `chainpilot wallet new --out FILE`) or wallet.secretKey: ${ENV_VAR}',
      { field: 'wallet' },
    );
  }
  if (d.wallet.keypairPath !== undefined && d.wallet.secretKey !== undefined) {
    throw refuse('RUNTIME_LIVE_NO_WALLET', 'both wallet.keypairPath and wallet.secretKey are set; keep exactly one', { field: 'wallet' });
  }
  const missing = missingLimits(d);
  if (missing.length > 0) {
    throw refuse('RUNTIME_LIVE_LIMITS_MISSING', `live mode needs explicit limits; set ${missing.join(', ')} in the deployment`, { fields: missing.join(', ') });
  }
  return d.network;
}

/** Risk limits and executor caps that live mode requires but the deployment leaves unset. */
export function missingLimits(d: Deployment): string[] {
  const required: [string, unknown][] = [
    ['risk.maxTradeSol', d.risk.maxTradeLamports],
    ['risk.maxOpenPositions', d.risk.maxOpenPositions],
    ['risk.maxExposureSol', d.risk.maxExposureLamports],
    ['risk.dailyLossLimitSol', d.risk.dailyLossLimitLamports],
    ['live.maxTradeSpendSol', d.live.maxTradeSpendLamports],
    ['live.maxDaySpendSol', d.live.maxDaySpendLamports],
  ];
  return required.filter(([, v]) => v === undefined).map(([k]) => k);
}

/** Base fee of one signature, lamports (the executor counts it in every intent's spend). */
const BASE_FEE_LAMPORTS = 5_000n;

/**
 * Warnings (not refusals) about caps that contradict each other: a per-trade executor cap below
 * the largest buy the risk gate allows plus its fee budget rejects every full-size buy.
 */
export function liveCapWarnings(d: Deployment): string[] {
  const warnings: string[] = [];
  const cap = d.live.maxTradeSpendLamports;
  const maxBuy = d.risk.maxTradeLamports;
  if (cap !== undefined && maxBuy !== undefined) {
    const needed = maxBuy + BigInt(d.execution.priorityFeeLamports) + BASE_FEE_LAMPORTS;
    if (cap < needed) {
      warnings.push(
        `live.maxTradeSpendSol (${cap} lamports) is below risk.maxTradeSol plus the fee budget (${needed} lamports): buys near risk.maxTradeSol will be rejected with LIVE_SPEND_CAP_TRADE; raise live.maxTradeSpendSol or lower risk.maxTradeSol`,
      );
    }
  }
  if (cap !== undefined && d.live.maxDaySpendLamports !== undefined && d.live.maxDaySpendLamports < cap) {
    warnings.push('live.maxDaySpendSol is below live.maxTradeSpendSol: the daily cap binds before the per-trade cap');
  }
  return warnings;
}
