/** DCA routes of `dca_program_a`. Bodies other than `/dca/programs` are not in the spec; see docs/simulator.md. */
import { z } from 'zod';
import type { DcaOrder } from '../model/model-types.js';
import { DCA_PROGRAM_ID } from '../model/dca-dynamics.js';
import { dcaOrderView } from '../views/dca-views.js';
import { badParam, notFound, parseQuery, q } from './rest-errors.js';
import type { RestRequest, RestRouter } from './rest-router.js';

const listQuery = z.object({
  program: z.string().optional(),
  dex: z.string().optional(),
  platform: z.string().optional(),
  limit: q.int(1, 500).default(100),
  cursor: z.string().regex(/^\d+$/, 'send back the cursor you were given').optional(),
  sort: z.enum(['volume', 'deposited', 'remaining', 'progress', 'recent', 'created', 'status']).optional(),
  sortBy: z.enum(['volume', 'deposited', 'remaining', 'progress', 'recent', 'created', 'status']).optional(),
  status: z.enum(['active', 'paused', 'completed', 'pending', 'all']).default('all'),
});

function list(req: RestRequest, filter: (o: DcaOrder) => boolean): unknown {
  const f = parseQuery(listQuery.loose(), req.query);
  const program = f.program ?? f.dex ?? f.platform;
  if (program !== undefined && program !== 'dca_program_a') throw badParam('program', 'the only DCA program is dca_program_a');
  const sort = f.sort ?? f.sortBy ?? 'recent';
  const key = (o: DcaOrder): number => {
    switch (sort) {
      case 'volume':
      case 'deposited':
        return Number(o.depositedLamports);
      case 'remaining':
        return Number(o.depositedLamports - o.usedLamports);
      case 'progress':
        return Number((o.usedLamports * 10_000n) / o.depositedLamports);
      case 'created':
        return o.createdAt;
      case 'status':
        return o.status === 'active' ? 1 : 0;
      case 'recent':
        return o.updatedAt;
    }
  };
  const rows = [...req.state.dca.values()].filter((o) => filter(o) && (f.status === 'all' || o.status === f.status)).sort((a, b) => key(b) - key(a));
  const offset = f.cursor === undefined ? 0 : Number(f.cursor);
  const page = rows.slice(offset, offset + f.limit);
  const next = offset + f.limit < rows.length ? String(offset + f.limit) : null;
  return { orders: page.map((o) => dcaOrderView(req.state, o)), total: rows.length, cursor: next, hasMore: next !== null };
}

function summary(orders: readonly DcaOrder[]): Record<string, number> {
  const s: Record<string, number> = { total: orders.length, active: 0, paused: 0, completed: 0, pending: 0 };
  for (const o of orders) s[o.status] = (s[o.status] ?? 0) + 1;
  return s;
}

export function addDcaRoutes(r: RestRouter): void {
  r.add('GET', '/dca/programs', () => ({ programs: [{ id: 'dca_program_a', label: 'DCA program A', programId: DCA_PROGRAM_ID }] }));
  r.add('GET', '/dca/wallet/:wallet', (req) => {
    const orders = [...req.state.dca.values()].filter((o) => o.wallet === req.params['wallet']);
    return { wallet: req.params['wallet'], summary: summary(orders), orders: orders.map((o) => dcaOrderView(req.state, o)) };
  });
  r.add('GET', '/dca/wallet/:wallet/orders', (req) => list(req, (o) => o.wallet === req.params['wallet']));
  r.add('GET', '/dca/order/:address', ({ state, params }) => {
    const o = state.dca.get(params['address']!);
    if (!o) throw notFound(`DCA order ${params['address']!}`);
    return dcaOrderView(state, o);
  });
  r.add('GET', '/dca/token/:mint', ({ state, params }) => {
    const mint = params['mint']!;
    const buys = [...state.dca.values()].filter((o) => o.outputMint === mint);
    const sells = [...state.dca.values()].filter((o) => o.inputMint === mint);
    const sum = (os: DcaOrder[], f: (o: DcaOrder) => bigint): string => os.reduce((a, o) => a + f(o), 0n).toString();
    return {
      mint,
      buyers: {
        orders: buys.length,
        active: buys.filter((o) => o.status === 'active').length,
        depositedRaw: sum(buys, (o) => o.depositedLamports),
        remainingRaw: sum(buys, (o) => o.depositedLamports - o.usedLamports),
      },
      sellers: {
        orders: sells.length,
        active: sells.filter((o) => o.status === 'active').length,
        depositedRaw: sum(sells, (o) => o.depositedLamports),
        remainingRaw: sum(sells, (o) => o.depositedLamports - o.usedLamports),
      },
    };
  });
  r.add('GET', '/dca/token/:mint/buyers', (req) => list(req, (o) => o.outputMint === req.params['mint']));
  r.add('GET', '/dca/token/:mint/sellers', (req) => list(req, (o) => o.inputMint === req.params['mint']));
  r.add('GET', '/dca/token/:mint/users', ({ state, params }) => {
    const by = new Map<string, { wallet: string; orders: number; depositedRaw: bigint }>();
    for (const o of state.dca.values()) {
      if (o.outputMint !== params['mint'] && o.inputMint !== params['mint']) continue;
      const u = by.get(o.wallet) ?? { wallet: o.wallet, orders: 0, depositedRaw: 0n };
      u.orders += 1;
      u.depositedRaw += o.depositedLamports;
      by.set(o.wallet, u);
    }
    return {
      users: [...by.values()]
        .sort((a, b) => (b.depositedRaw > a.depositedRaw ? 1 : -1))
        .slice(0, 100)
        .map((u) => ({ ...u, depositedRaw: u.depositedRaw.toString() })),
    };
  });
  r.add('GET', '/dca/pair/:inputMint/:outputMint', (req) =>
    list(req, (o) => o.inputMint === req.params['inputMint'] && o.outputMint === req.params['outputMint']),
  );
}
