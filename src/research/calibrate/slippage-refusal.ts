/**
 * Which refusals and failures were the price moving past the intent's slippage: live's inspection
 * of the simulated output (`LIVE_INSPECTION_OUTPUT`), the swap program's "slippage exceeded" error
 * (the simulator's venue: `Custom` 6001) in a simulation or on-chain error, and paper's own
 * `PAPER_SLIPPAGE_EXCEEDED`. Shared by `calibrate` and the live-vs-backtest pairing.
 */

const SLIPPAGE_ERROR = /"Custom":6001\b/;

/** True when `code` / `reason` say the swap failed because the price moved past its slippage. */
export function isSlippageRefusal(code: string | null | undefined, reason: string | null | undefined): boolean {
  return code === 'LIVE_INSPECTION_OUTPUT' || code === 'PAPER_SLIPPAGE_EXCEEDED' || (typeof reason === 'string' && SLIPPAGE_ERROR.test(reason));
}
