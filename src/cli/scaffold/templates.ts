/**
 * The files `chainpilot init` and `chainpilot new strategy` write: a strategy project that works
 * offline (the embedded simulator), its strategy from the guide's example, and a test of it.
 */

/** A strategy named `id` (the guide's dip buyer, docs/strategies.md). */
export function strategyFile(id: string): string {
  return `/**
 * ${id}: buys launched tokens after their price dips a given share below the high seen since
 * launch, once enough wallets hold them; the exit rules manage the position.
 */
import { defineStrategy, durationParam, rooms, solParam, z } from 'chainpilot/strategy';

const params = z.strictObject({
  buySol: solParam.prefault('0.05'), // exact SOL -> lamports (bigint), never a float
  dipBps: z.number().int().min(100).max(9_000).default(2_000),
  minHolders: z.number().int().min(0).default(15),
  watchMs: durationParam({ min: 1 }).default(10 * 60_000), // 600000 or "10m"
});
type Params = z.output<typeof params>;
interface State {
  readonly highs: Map<string, number>;
}

export default defineStrategy<Params, State>({
  id: ${JSON.stringify(id)},
  description: 'Buys a dip below the post-launch high once enough wallets hold the token.',
  params,
  rooms: () => [rooms.latest()],
  initialState: () => ({ highs: new Map() }),
  exits: () => ({ takeProfit: [{ multiple: '1.25', sellBps: 10_000 }], stopLossBps: 1_500, timeStopMs: 15 * 60_000 }),

  onLaunch(e, ctx) {
    ctx.state.highs.set(e.mint, 0);
    ctx.watch(rooms.price(e.mint), { ttlMs: ctx.params.watchMs });
    ctx.watch(rooms.holders(e.mint), { ttlMs: ctx.params.watchMs });
    ctx.schedule(ctx.params.watchMs, 'forget', e.mint);
  },
  onPrice(e, ctx) {
    const high = ctx.state.highs.get(e.mint);
    if (high === undefined || ctx.position(e.mint)?.tokenRaw || ctx.pending(e.mint).length > 0) return;
    const price = Number(e.price); // a signal, not money: amounts stay exact
    if (price > high) {
      ctx.state.highs.set(e.mint, price);
      return;
    }
    const holders = ctx.market(e.mint)?.safety.holders ?? 0;
    if (holders < ctx.params.minHolders || price > high * (1 - ctx.params.dipBps / 10_000)) return;
    const r = ctx.buy({ mint: e.mint, lamports: ctx.params.buySol, reason: \`dip with \${holders} holders\` });
    if (!r.ok) ctx.log.debug('buy denied', { mint: e.mint, code: r.code });
  },
  onFill(f, ctx) {
    if (f.side === 'buy') ctx.state.highs.delete(f.mint);
  },
  onTimer(t, ctx) {
    ctx.state.highs.delete(String(t.payload));
  },
});
`;
}

/**
 * A test of the strategy in `./${id}.ts`: its parameters as a deployment file gives them, and its
 * trading on the strategy test kit (`chainpilot/testing`: the real engine and paper executor, a
 * manual clock, events built by the test).
 */
export function strategyTestFile(id: string): string {
  return `import { describe, expect, it } from 'vitest';
import { testStrategy } from 'chainpilot/testing';
import strategy from './${id}.js';

const MINT = 'Mint1111111111111111111111111111111111111111';

describe(${JSON.stringify(id)}, () => {
  it('takes durations as "10m", SOL as exact lamports, and refuses an unknown parameter', () => {
    const p = strategy.params.parse({ watchMs: '10m', buySol: '0.1' });
    expect(p.watchMs).toBe(600_000);
    expect(p.buySol).toBe(100_000_000n);
    expect(strategy.params.safeParse({ dipBp: 100 }).success).toBe(false);
  });

  it('buys a dip once enough wallets hold the token, and its take-profit rule sells it', async () => {
    const t = await testStrategy(strategy, { params: { buySol: '0.1', minHolders: 5 } });
    t.send(t.events.launch({ mint: MINT })); // it watches the token's price and holders
    t.send(t.events.safety(MINT, 'holders', 20), t.events.price(MINT, '0.0001'));
    t.expectNoIntent(); // no dip yet
    t.send(t.events.price(MINT, '0.00007')); // 30 % below the high
    t.expectIntent({ side: 'buy', mint: MINT, spendLamports: 100_000_000n });
    t.advance(250); // the paper latency passes on the manual clock: a paper fill
    t.expectFill({ side: 'buy', mint: MINT });
    t.send(t.events.price(MINT, '0.0001')); // past 1.25x the entry
    t.expectIntent({ side: 'sell', mint: MINT });
    t.advance(250);
    expect(t.positions()).toEqual([]);
    await t.stop();
  });
});
`;
}

/** A paper deployment of `id` on the embedded simulator (no key, no network). */
export function deploymentFile(name: string, id: string): string {
  return `# Paper trading on the embedded simulator: no API key, no network.
#   npx chainpilot paper deploy.yaml --duration 60s
version: 1
name: ${name}
endpoints:
  simulator: { seed: 42, speed: 60 }
strategies:
  - use: ./strategies/${id}.ts
    params: { buySol: "0.05", dipBps: 2000, minHolders: 5, watchMs: 10m }
risk:
  maxTradeSol: "0.2"
  maxOpenPositions: 3
  maxExposureSol: "0.6"
  dailyLossLimitSol: "0.5"
paper:
  startingBalanceSol: "5"
telemetry:
  logLevel: warn
  decisionLog: ./.chainpilot/decisions.jsonl
`;
}

export function packageFile(name: string, chainpilotVersion: string): string {
  return `${JSON.stringify(
    {
      name,
      private: true,
      type: 'module',
      scripts: { test: 'vitest run', validate: 'chainpilot validate deploy.yaml', paper: 'chainpilot paper deploy.yaml --duration 60s' },
      dependencies: { chainpilot: `^${chainpilotVersion}` },
      devDependencies: { typescript: '~5.9.3', vitest: '^4.1.12' },
    },
    null,
    2,
  )}\n`;
}

export const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      noEmit: true,
    },
    include: ['strategies'],
  },
  null,
  2,
)}\n`;

export function readmeFile(name: string): string {
  return `# ${name}

A chainpilot strategy project. Offline: paper runs trade on the embedded simulator.

    npm install
    npm test                                       # the strategies' tests (vitest)
    npx chainpilot paper deploy.yaml --duration 60s # a paper run on the simulator

\`npx chainpilot new strategy NAME\` adds a strategy and its test under strategies/.
`;
}
