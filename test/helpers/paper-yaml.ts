/**
 * Deployment files of paper deployments on the embedded simulator (speed 120), as the daemon tests
 * write them: the strategies given, the risk limits of config/paper-sim.yaml, silent logs, then `extra`.
 */

/** curve-momentum tuned to trade within seconds, with its exits. */
export const MOMENTUM_STRATEGY = `  - use: curve-momentum
    params: { milestonePct: 25, buySol: "0.1", minHolders: 5 }
    exits: { takeProfit: [{ multiple: "1.3", sellBps: 10000 }], stopLossBps: 2000, timeStop: 5m }`;
/** graduation-sniper buying 0.1 SOL. */
export const SNIPER_STRATEGY = `  - use: graduation-sniper
    params: { buySol: "0.1" }`;

export const paperSimYaml = (name: string, o: { readonly seed: number; readonly strategies: readonly string[]; readonly extra?: string }): string => `version: 1
name: ${name}
endpoints:
  simulator:
    seed: ${o.seed}
    speed: 120
strategies:
${o.strategies.join('\n')}
risk: { maxTradeSol: "0.5", maxOpenPositions: 20, maxExposureSol: "5" }
telemetry: { logLevel: silent }
${o.extra ?? ''}`;
