/**
 * Datastream ingest per room family. A server in a child process pinned to the other core
 * (bench/ingest-server.ts) writes pre-serialised frames in large batches, so it is never the
 * bottleneck. For each family, in alternating short bursts, three readers take the same frames:
 *   - bare: `ws` + `JSON.parse` (the baseline, no checks);
 *   - sdk: the official SDK's Datastream client (`@solana-tracker/data-api`), listeners per room;
 *   - chainpilot: the client with the room registry's guard, dedup and dispatch to a subscriber
 *     (the bench throws if it ever counts a duplicate, reject, drop or unrouted message: a lost event).
 * Each reader runs in this process (pinned to its own core); the metric is events per second of
 * this process's CPU time (user + system), robust on a shared machine. Ratios are medians of
 * paired bursts. Object-payload rooms and price rooms are reported separately, with their minimum.
 * DATASTREAM_BENCH_SECONDS sets each burst (default 0.5 s); DATASTREAM_BENCH_ROUNDS the rounds (6: a multiple
 * of the three readers, so each reader takes each turn of the rotation equally often);
 * DATASTREAM_BENCH_FAMILIES a comma list of families to measure (default all). Each row notes the
 * reader's CPU seconds per wall second: near 1 means it saturates and the server keeps ahead; on a
 * busy machine it drops (the scheduler, not the server), and ratios get noisier.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { z } from 'zod';
import { Datastream } from '@solana-tracker/data-api';
import { createDatastreamClient } from '../src/client/datastream/index.js';
import { checkLiquidityEvent } from '../src/client/datastream/rooms/guards.js';
import { FrameDecoder } from '../src/client/datastream/connection/frame-decoder.js';
import { opsPerSecond, type Bench, type BenchRow } from './harness.js';
import { RING, type FrameTemplates } from './ingest-server.js';

const SECONDS = Number(process.env.DATASTREAM_BENCH_SECONDS ?? 0.5);
const ROUNDS = Number(process.env.DATASTREAM_BENCH_ROUNDS ?? 6);
const SOL = 'So11111111111111111111111111111111111111112';
const MINT = 'MintA111111111111111111111111111111111111111';
const SIG = '5h3kVq9xTt1YwJzQ8uNfRz2cLmPbD7sAeKgHjXo4WnCvUiEy6MrBa';

const liquidity = {
  tx: `${SIG}#N#`,
  type: 'add_liquidity',
  program: 'venue_a-amm',
  programId: 'AMMprog11111111111111111111111111111111111',
  instruction: 'deposit',
  pool: 'Pool1111111111111111111111111111111111111111',
  wallet: 'Wallet11111111111111111111111111111111111111',
  time: 1_700_000_000_000,
  slot: 250_000_000,
  amountBasis: 'transfer',
  tokens: [
    { address: MINT, amount: '1234.567891', amountRaw: '1234567891', decimals: 6 },
    { address: SOL, amount: '0.987654321', amountRaw: '987654321', decimals: 9 },
  ],
};
const side = (address: string, amount: number, decimals: number) => ({
  name: 'Token',
  symbol: 'TKN',
  image: 'https://img.example/t.png',
  decimals,
  amount,
  address,
  price: { usd: 0.0123 },
  marketCap: { usd: 12_300 },
});
const swap = (k: string) => ({
  tx: `${SIG}${k}#N#`,
  amount: 1234.5,
  priceUsd: 0.0123,
  volume: 15.2,
  solVolume: 0.1,
  type: 'buy',
  wallet: 'Wallet11111111111111111111111111111111111111',
  time: 1_700_000_000_000,
  program: 'venue_a',
  token: { from: side(SOL, 0.1, 9), to: side(MINT, 1234.5, 6) },
});
const tokenPools = (mint: string) => ({
  token: {
    name: 'Cat',
    symbol: 'CAT',
    mint,
    uri: 'https://meta.example/cat.json',
    decimals: 6,
    description: 'a cat',
    image: 'https://img.example/cat.png',
    creation: { creator: 'Creator1111', created_tx: SIG, created_time: 1_700_000_000 },
  },
  pools: [
    {
      poolId: 'Pool1111111111111111111111111111111111111111',
      liquidity: { quote: 30, usd: 4500 },
      price: { quote: 3e-8, usd: 4.5e-6 },
      tokenSupply: 1e9,
      lpBurn: 100,
      tokenAddress: mint,
      marketCap: { quote: 30, usd: 4500 },
      market: 'venue_a',
      quoteToken: SOL,
      decimals: 6,
      security: { freezeAuthority: null, mintAuthority: null },
      lastUpdated: 1_700_000_000_000,
      deployer: 'Creator1111',
      curvePercentage: 12.5,
      txns: { buys: 10, sells: 2, total: 12, volume: 1500, volume24h: 1500 },
    },
  ],
  events: { '1m': { priceChangePercentage: 1.2 }, '5m': { priceChangePercentage: 3.4 } },
  risk: { rugged: false, risks: [{ name: 'Bonding curve', description: 'not complete', level: 'warning', score: 4000 }], score: 3 },
});

/** Every family the bench measures: its room and a frame template (`#N#` in the identifying fields); exported for profiling scripts. */
export const FAMILIES: FrameTemplates = {
  latest: { room: 'latest', data: tokenPools('Mint#N#') },
  graduated: { room: 'graduated', data: { ...tokenPools('Mint#N#'), graduationTx: `${SIG}#N#`, graduationTime: 1_700_000_000_000 } },
  insider: {
    room: `insider:${MINT}`,
    data: {
      wallet: 'W#N#',
      amount: '1000',
      tokenAmount: 1000,
      percentage: 1.5,
      previousAmount: 900,
      previousPercentage: 1.4,
      totalSniperPercentage: 12.5,
      totalInsiderPercentage: 8.25,
      timestamp: 1_700_000_000_000,
    },
  },
  dca: {
    room: 'dca:dca_program_a',
    data: {
      eventName: 'filled',
      programId: 'dca_program_a',
      signature: `${SIG}#N#`,
      timestamp: 1_700_000_000_000,
      order: {
        address: 'Order1111111111111111111111111111111111111',
        wallet: 'Wallet11111111111111111111111111111111111111',
        inputMint: SOL,
        outputMint: MINT,
        status: 'active',
        inDeposited: '1000000000',
        inUsed: '250000000',
        outReceived: '12345678',
      },
    },
  },
  transaction: { room: `transaction:${MINT}`, data: [swap('a'), swap('b')] },
  liquidity: { room: `liquidity:${MINT}`, data: [liquidity] },
  price: {
    room: `price:token:${MINT}`,
    data: { price: 0.0123, price_quote: 0.000082, pool: 'Pool1111111111111111111111111111111111111111', token: MINT, time: 1_700_000_000_000, n: '#N#' },
  },
  'aggregated-price': {
    room: `price:aggregated:${MINT}`,
    data: {
      token: MINT,
      timestamp: 1_700_000_000_000,
      price: 0.0123,
      pool: 'Pool1',
      n: '#N#',
      aggregated: { median: 0.0123, average: 0.0124, min: 0.012, max: 0.0129, poolCount: 3 },
      topPools: [{ poolId: 'Pool1', price: 0.0123, liquidity: 5000, market: 'venue_a-amm' }],
    },
  },
};
const PRICE_FAMILIES = new Set(['price', 'aggregated-price']);
const eventsPerFrame = (family: string): number => {
  const d = FAMILIES[family]!.data;
  return Array.isArray(d) ? d.length : 1;
};

type Reader = 'bare' | 'sdk' | 'chainpilot';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One burst: events per CPU second of the reader, and its CPU time per wall second (near 1: the reader, not the server, is the limit). */
interface Burst {
  readonly rate: number;
  readonly util: number;
}

async function burst(port: number, family: string, reader: Reader, seconds: number): Promise<Burst> {
  const { room } = FAMILIES[family]!;
  const url = `ws://127.0.0.1:${port}/${family}`;
  let events = 0;
  let stop: () => void;
  if (reader === 'bare') {
    const ws = new WebSocket(`${url}/benchkey`, { perMessageDeflate: false });
    await new Promise<void>((r) => ws.once('open', () => r()));
    ws.on('message', (d: Buffer) => {
      const f = JSON.parse(d.toString('utf8')) as { type: string; data: unknown };
      if (f.type === 'message') events += Array.isArray(f.data) ? f.data.length : 1;
    });
    ws.send(JSON.stringify({ type: 'join', room }));
    stop = () => ws.terminate();
  } else if (reader === 'sdk') {
    const ds = new Datastream({ wsUrl: `${url}/benchkey`, autoReconnect: false });
    await ds.connect();
    // the SDK calls the listener once per array element
    ds._subscribe(room).on(() => void events++);
    stop = () => ds.disconnect();
  } else {
    // a dedup window smaller than the server's ring of distinct events, so each one is new to it
    const client = createDatastreamClient({ url, apiKey: 'benchkey', dedupCapacity: RING / 4 });
    client.subscribe(room, (m) => {
      events += Array.isArray(m.data) ? m.data.length : 1;
    });
    await client.whenOpen();
    stop = () => {
      // every event is new to the window and valid: a duplicate, reject or drop would be a lost event
      const st = client.stats();
      const lost = st.duplicates + st.invalidPayloads + st.dropped + st.coalesced + st.unroutedMessages + st.frameErrors;
      client.close();
      if (lost > 0)
        throw new Error(
          `chainpilot reader on ${family}: ${lost} event(s) not delivered (${JSON.stringify({ duplicates: st.duplicates, invalid: st.invalidPayloads, dropped: st.dropped, coalesced: st.coalesced, unrouted: st.unroutedMessages, frameErrors: st.frameErrors })})`,
        );
    };
  }
  await sleep(150); // warm-up
  const e0 = events;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const cpu = process.cpuUsage(c0);
  const wallMs = performance.now() - t0;
  const n = events - e0;
  stop();
  await sleep(50);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  return { rate: n / cpuS, util: (cpuS * 1000) / wallMs };
}

/** The middle value; the mean of the two middle values of an even count. */
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Pins a process to a core when `taskset` exists (best effort: on a 1-core machine nothing is pinned). */
function pin(pid: number, core: number): string {
  try {
    execFileSync('taskset', ['-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
    return `core ${core}`;
  } catch {
    return 'unpinned';
  }
}

/** `ws`'s receiver, as its CommonJS entry exports it (no type declarations for it). */
interface WsReceiver {
  write(chunk: Buffer): void;
  on(event: 'message', fn: (data: Buffer) => void): void;
}
type WsReceiverClass = new (o: {
  isServer: boolean;
  maxPayload: number;
  skipUTF8Validation: boolean;
  allowSynchronousEvents: boolean;
  binaryType: string;
}) => WsReceiver;

/**
 * Framing in one process, without sockets: 256 liquidity frames in 64 KiB reads through `ws`'s
 * receiver (as `ws` uses it, UTF-8 check off as the client had it) and through the client's
 * `FrameDecoder`, each frame decoded to text and parsed.
 */
function framingRows(): BenchRow[] {
  const parts = JSON.stringify({ type: 'message', room: FAMILIES.liquidity!.room, data: FAMILIES.liquidity!.data }).split('#N#');
  const frames: Buffer[] = [];
  for (let i = 0; i < 256; i++) {
    const body = Buffer.from(parts.join(String(i)));
    frames.push(Buffer.from([0x81, 126, body.length >> 8, body.length & 0xff]), body);
  }
  const stream = Buffer.concat(frames);
  const reads: Buffer[] = [];
  for (let i = 0; i < stream.length; i += 65_536) reads.push(stream.subarray(i, i + 65_536));
  let n = 0;
  const Receiver = (createRequire(import.meta.url)('ws') as { Receiver: WsReceiverClass }).Receiver;
  const receiver = new Receiver({ isServer: false, maxPayload: 1 << 24, skipUTF8Validation: true, allowSynchronousEvents: true, binaryType: 'nodebuffer' });
  receiver.on('message', (d) => {
    if ((JSON.parse(d.toString()) as { type: string }).type === 'message') n++;
  });
  const decoder = new FrameDecoder(1 << 24, {
    message(buf, start, end) {
      if ((JSON.parse(buf.toString('utf8', start, end)) as { type: string }).type === 'message') n++;
    },
    ping() {},
    close() {},
    reading: true,
  });
  const run = (feed: (r: Buffer) => void): number => {
    n = 0;
    const ops = opsPerSecond(() => reads.forEach(feed), 1500, 4);
    if (n === 0) throw new Error('no frame decoded');
    return ops * 256;
  };
  // alternate, three rounds each; medians
  const wsRates: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < 3; i++) {
    wsRates.push(run((r) => receiver.write(r)));
    ours.push(run((r) => decoder.push(r)));
  }
  const w = median(wsRates);
  const o = median(ours);
  return [
    { name: 'framing+parse: ws receiver (baseline)', value: w, unit: 'frames/s', note: 'liquidity frames, 64 KiB reads, one process' },
    { name: 'framing+parse: FrameDecoder', value: o, unit: 'frames/s', ratio: o / w, note: `${(1e9 / w - 1e9 / o).toFixed(0)} ns a frame less` },
  ];
}

const bench: Bench = {
  name: 'datastream-ingest',
  async run() {
    const serverFile = fileURLToPath(new URL('./ingest-server.ts', import.meta.url));
    const server = spawn(process.execPath, ['--import', 'tsx', serverFile, JSON.stringify(FAMILIES)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    });
    const pinned = `server ${pin(server.pid!, 1)}, readers ${pin(process.pid, 0)}`;
    try {
      // warm every reader's code paths (JIT) before measuring
      for (const family of ['latest', 'transaction', 'price'])
        for (const reader of ['bare', 'sdk', 'chainpilot'] as Reader[]) await burst(port, family, reader, 0.2);
      const rows: BenchRow[] = [];
      const mins = { object: { sdk: Infinity, chainpilot: Infinity, vsSdk: Infinity }, price: { sdk: Infinity, chainpilot: Infinity, vsSdk: Infinity } };
      const only = process.env.DATASTREAM_BENCH_FAMILIES?.split(',');
      for (const family of Object.keys(FAMILIES).filter((f) => !only || only.includes(f))) {
        const r: Record<Reader, number[]> = { bare: [], sdk: [], chainpilot: [] };
        const util: Record<Reader, number[]> = { bare: [], sdk: [], chainpilot: [] };
        const ours: number[] = [];
        const sdk: number[] = [];
        const oursVsSdk: number[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          // rotate the order so no reader always inherits another's leftovers
          const order: Reader[] = (['bare', 'sdk', 'chainpilot'] as Reader[]).map((_, j, a) => a[(i + j) % 3]!);
          const got = {} as Record<Reader, number>;
          for (const reader of order) {
            const b = await burst(port, family, reader, SECONDS);
            got[reader] = b.rate;
            util[reader].push(b.util);
          }
          for (const reader of order) r[reader].push(got[reader]);
          ours.push(got.chainpilot / got.bare);
          sdk.push(got.sdk / got.bare);
          oursVsSdk.push(got.chainpilot / got.sdk);
        }
        const kind = PRICE_FAMILIES.has(family) ? 'price' : 'object';
        const m = mins[kind];
        m.chainpilot = Math.min(m.chainpilot, median(ours));
        m.sdk = Math.min(m.sdk, median(sdk));
        m.vsSdk = Math.min(m.vsSdk, median(oursVsSdk));
        // a reader's CPU share of its core: near 1 when it saturates (the server keeps ahead); far below on a busy machine
        const busy = (reader: Reader): string => `cpu ${median(util[reader]).toFixed(2)}/s`;
        const note = `${kind} room ${FAMILIES[family]!.room.split(':')[0]}, ${eventsPerFrame(family)} event(s)/frame; ${busy('bare')}`;
        rows.push(
          { name: `${family}: bare ws + JSON.parse`, value: median(r.bare), unit: 'events/cpu-s', note },
          { name: `${family}: official SDK`, value: median(r.sdk), unit: 'events/cpu-s', ratio: median(sdk), note: `ratio to bare; ${busy('sdk')}` },
          {
            name: `${family}: chainpilot (guard+dedup)`,
            value: median(r.chainpilot),
            unit: 'events/cpu-s',
            ratio: median(ours),
            note: `ratio to bare; ${median(oursVsSdk).toFixed(2)}x the SDK; ${busy('chainpilot')}`,
          },
        );
      }
      for (const kind of ['object', 'price'] as const) {
        if (mins[kind].chainpilot === Infinity) continue; // no family of this kind measured
        rows.push(
          { name: `${kind} rooms: worst chainpilot/bare`, value: mins[kind].chainpilot, unit: 'ratio', ratio: mins[kind].chainpilot, note: 'goal >= 0.9' },
          { name: `${kind} rooms: worst chainpilot/SDK`, value: mins[kind].vsSdk, unit: 'ratio', ratio: mins[kind].vsSdk, note: pinned },
        );
      }
      const sample = JSON.parse(JSON.stringify(liquidity).replace('#N#', '1')) as unknown;
      const zodEvent = z.looseObject({
        tx: z.string(),
        type: z.enum(['add_liquidity', 'remove_liquidity']),
        program: z.string(),
        programId: z.string(),
        instruction: z.string(),
        pool: z.string(),
        wallet: z.string(),
        time: z.number().int(),
        slot: z.number().int(),
        amountBasis: z.enum(['transfer', 'principal']),
        tokens: z.array(
          z.looseObject({
            address: z.string(),
            amount: z.string().regex(/^-?\d+(\.\d+)?$/),
            amountRaw: z.string().regex(/^-?\d+$/),
            decimals: z.number().int(),
          }),
        ),
      });
      rows.push(...framingRows());
      const parseOps = opsPerSecond(() => JSON.parse(JSON.stringify(sample)), 300);
      const guardOps = opsPerSecond(() => checkLiquidityEvent(sample), 300);
      const zodOps = opsPerSecond(() => zodEvent.safeParse(sample), 300);
      rows.push(
        { name: 'stringify+parse one event (baseline)', value: parseOps, unit: 'ops/s' },
        { name: 'hand-written guard, one event', value: guardOps, unit: 'ops/s', ratio: guardOps / parseOps },
        { name: 'zod safeParse, one event', value: zodOps, unit: 'ops/s', ratio: zodOps / parseOps },
      );
      return rows;
    } finally {
      server.kill();
    }
  },
};
export default bench;
