/**
 * The frame → intent bench's server, in a child process (its work is not on the measured event
 * loop): a `ws` server on loopback that, once a client joins `latest`, writes one launch frame
 * every `gapMs` (a new mint each, never a burst: latency, not throughput), with the system-wide
 * monotonic clock (`process.hrtime`, CLOCK_MONOTONIC on Linux, the same in every process) at the
 * write in the token's name. It counts every other join and leave it receives. Args: gapMs, frames.
 * Prints `{ port }` once listening; exits when stdin closes.
 */
import { WebSocketServer, type WebSocket } from 'ws';

const gapMs = Number(process.argv[2] ?? 2);
const frames = Number(process.argv[3] ?? 2_000);
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
let run = 0;
wss.on('connection', (ws: WebSocket) => {
  const id = run++;
  let timer: NodeJS.Timeout | undefined;
  let sent = 0;
  ws.on('message', (data: Buffer) => {
    const f = JSON.parse(data.toString('utf8')) as { type?: string; room?: string };
    if (f.type === 'join' && f.room === 'latest' && timer === undefined) {
      timer = setInterval(() => {
        if (sent >= frames) return void clearInterval(timer);
        const mint = `Run${id}Mint${sent++}`;
        const text = `{"type":"message","room":"latest","data":{"token":{"mint":"${mint}","symbol":"B","name":"${process.hrtime.bigint()}","decimals":6},"pools":[{"market":"venue_a","poolId":"P"}]}}`;
        ws.send(text);
      }, gapMs);
    }
  });
  ws.on('close', () => clearInterval(timer));
});
wss.on('listening', () => {
  const a = wss.address();
  process.stdout.write(`${JSON.stringify({ port: a !== null && typeof a === 'object' ? a.port : 0 })}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => wss.close(() => process.exit(0)));
