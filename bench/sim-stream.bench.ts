/**
 * Frames per second the simulator sustains to 10 subscribed Datastream clients at `speed: 'max'`,
 * against a baseline in the same run: the same `ws` server and clients fed a pre-serialised frame
 * as fast as possible (the transport ceiling). `SIM_BENCH_MS` sets the run length (default 3000).
 */
import { WebSocketServer } from 'ws';
import WebSocket from 'ws';
import type { AddressInfo } from 'node:net';
import type { Bench, BenchRow } from './harness.js';
import { startSimulator } from '../src/sim/start-simulator.js';
import type { UnixMs } from '../src/core/index.js';

const CLIENTS = 10;
const RUN_MS = Number(process.env['SIM_BENCH_MS'] ?? 3000);
const ROOMS = ['latest', 'graduated', 'graduating', 'venue_a:curve:50', 'launchpad:curve:90', 'dca:dca_program_a', 'pm:crypto:BTC'];

async function openClients(url: string, count: number, onFrame: () => void): Promise<WebSocket[]> {
  const clients: WebSocket[] = [];
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url);
    ws.on('message', (d) => {
      if ((d as Buffer).length === 15 && d.toString() === '{"type":"ping"}') ws.send('{"type":"pong"}');
      onFrame();
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    clients.push(ws);
  }
  return clients;
}

async function closeAll(clients: WebSocket[]): Promise<void> {
  await Promise.all(
    clients.map(
      (ws) =>
        new Promise<void>((resolve) => {
          ws.once('close', () => resolve());
          ws.close();
        }),
    ),
  );
}

/** The transport ceiling: one serialised frame written to 10 clients in a loop. */
async function baseline(): Promise<number> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as AddressInfo).port;
  let received = 0;
  const clients = await openClients(`ws://127.0.0.1:${port}`, CLIENTS, () => (received += 1));
  const frame = Buffer.from(
    JSON.stringify({
      type: 'message',
      room: 'transaction:x',
      data: { tx: 'x'.repeat(87), type: 'buy', amount: '123.456', priceUsd: 0.0000123, volume: 12.3, time: Date.now() },
    }),
  );
  const start = performance.now();
  let running = true;
  const pump = (): void => {
    if (!running) return;
    for (let i = 0; i < 50; i++) for (const ws of wss.clients) ws.send(frame);
    setImmediate(pump);
  };
  pump();
  await new Promise((r) => setTimeout(r, RUN_MS));
  running = false;
  const rate = received / ((performance.now() - start) / 1000);
  await closeAll(clients);
  await new Promise<void>((r) => wss.close(() => r()));
  return rate;
}

async function simulator(): Promise<{ rate: number; simSeconds: number }> {
  const startAt = 1_767_225_600_000 as UnixMs;
  const sim = await startSimulator({ seed: 1, speed: 'max', startAt, apiKey: 'bench' });
  let received = 0;
  const clients = await openClients(`${sim.urls.datastream}/bench`, CLIENTS, () => (received += 1));
  // Every client joins the market-wide rooms; each also follows the trades and prices of new tokens.
  for (const ws of clients) for (const room of ROOMS) ws.send(JSON.stringify({ type: 'join', room }));
  const follow = sim.market.onTokenLaunched((t) => {
    for (const ws of clients) for (const p of ['transaction:', 'price:token:', 'holders:']) ws.send(JSON.stringify({ type: 'join', room: `${p}${t.mint}` }));
  });
  const start = performance.now();
  await new Promise((r) => setTimeout(r, RUN_MS));
  const rate = received / ((performance.now() - start) / 1000);
  follow();
  const simSeconds = (sim.clock.now() - startAt) / 1000;
  await closeAll(clients);
  await sim.stop();
  return { rate, simSeconds };
}

const bench: Bench = {
  name: 'sim-stream',
  async run(): Promise<BenchRow[]> {
    const base = await baseline();
    const s = await simulator();
    return [
      { name: `ws ceiling, 1 frame to ${CLIENTS} clients (baseline)`, value: base, unit: 'frames/s' },
      {
        name: `simulator at max speed to ${CLIENTS} clients`,
        value: s.rate,
        unit: 'frames/s',
        ratio: s.rate / base,
        note: `${(s.simSeconds / (RUN_MS / 1000)).toFixed(0)}x real time`,
      },
    ];
  },
};

export default bench;
