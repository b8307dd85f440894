/**
 * A paper deployment file for daemon tests: the embedded simulator (seed 42) at speed 600, the two
 * strategies of config/paper-sim.yaml tuned to trade within seconds, silent logs; `extra` is
 * appended (a `notify:` block, say).
 */
export const paperDeploymentYaml = (name: string, extra = ''): string => `version: 1
name: ${name}
endpoints:
  simulator: { seed: 42, speed: 600 }
strategies:
  - use: graduation-sniper
    params: { buySol: "0.2" }
  - use: curve-momentum
    params: { milestonePct: 25, buySol: "0.1", minHolders: 5 }
risk: { maxTradeSol: "0.5", maxOpenPositions: 5, maxExposureSol: "2" }
telemetry: { logLevel: silent }
${extra}`;
