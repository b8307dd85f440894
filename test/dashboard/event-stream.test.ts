import { afterEach, describe, expect, it } from 'vitest';
import { unixMs } from '../../src/core/index.js';
import { formatEventId, parseEventId } from '../../src/service/dashboard/event-stream.js';
import { decision, readStream, startTestServer, TOKEN, type SseMessage, type TestServer } from './support.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const seqs = (msgs: readonly SseMessage[], kind: string): number[] => msgs.filter((m) => m.event === kind).map((m) => (m.data as { seq: number }).seq);
const has =
  (kind: string, seq: number) =>
  (msgs: readonly SseMessage[]): boolean =>
    seqs(msgs, kind).includes(seq);

describe('the dashboard event stream', () => {
  it('parses only ids it made', () => {
    expect(parseEventId(formatEventId({ boot: 'abcdef0123456789', decisions: 12, events: 3 }))).toEqual({ boot: 'abcdef0123456789', decisions: 12, events: 3 });
    for (const bad of ['', '12', 'abc.1.2', 'abcdef0123456789.1', 'ABCDEF0123456789.1.2', 'abcdef0123456789.-1.2']) expect(parseEventId(bad)).toBeUndefined();
  });

  it('starts with a snapshot whose id is the cursor, then sends each new entry once with the next sequence', async () => {
    server = await startTestServer();
    for (let i = 1; i <= 3; i++) server.decisions.append('a', decision(i));
    const s = server;
    let appended = false;
    const msgs = await readStream(s.url, {
      until: (m) => {
        if (m.length >= 1 && !appended) {
          appended = true;
          s.decisions.append('a', decision(4));
          s.events.append('a', { type: 'equity', at: unixMs(5), equityLamports: 10n ** 10n });
        }
        return m.some((x) => x.event === 'event');
      },
    });
    expect(msgs[0]?.event).toBe('snapshot');
    const snap = msgs[0]?.data as { reset: boolean; decisions: { seq: number }[]; boot: string };
    expect(snap.reset).toBe(false);
    expect(snap.decisions.map((d) => d.seq)).toEqual([1, 2, 3]);
    expect(parseEventId(msgs[0]?.id)).toEqual({ boot: snap.boot, decisions: 3, events: 0 });
    expect(seqs(msgs, 'decision')).toEqual([4]);
    const ev = msgs.find((m) => m.event === 'event');
    expect(parseEventId(ev?.id)).toEqual({ boot: snap.boot, decisions: 4, events: 1 });
    expect((ev?.data as { event: { equityLamports: string } }).event.equityLamports).toBe('10000000000');
  });

  it('resumes from Last-Event-ID with exactly the entries missed, no gap and no duplicate', async () => {
    server = await startTestServer();
    const s = server;
    for (let i = 1; i <= 5; i++) s.decisions.append('a', decision(i));
    const first = await readStream(s.url, { until: (m) => m.length >= 1 });
    const id = first[0]?.id ?? '';
    // Missed while disconnected:
    for (let i = 6; i <= 9; i++) s.decisions.append(i % 2 ? 'a' : 'b', decision(i));
    s.events.append('a', { type: 'alert', at: unixMs(1), level: 'warn', code: 'X', message: 'm' });
    let live = false;
    const resumed = await readStream(s.url, {
      lastEventId: id,
      until: (m) => {
        // ...and one that arrives live, once the replay reached the client.
        if (!live && has('event', 1)(m)) {
          live = true;
          s.decisions.append('a', decision(10));
        }
        return has('decision', 10)(m);
      },
    });
    expect(resumed.some((m) => m.event === 'snapshot')).toBe(false);
    expect(resumed[0]?.event).toBe('hello');
    expect(seqs(resumed, 'decision')).toEqual([6, 7, 8, 9, 10]);
    expect(seqs(resumed, 'event')).toEqual([1]);
  });

  it('takes the cursor from the lastEventId query parameter when the page opens a new stream with a fresh ticket', async () => {
    server = await startTestServer();
    const s = server;
    s.decisions.append('a', decision(1));
    const id = (await readStream(s.url, { until: (m) => m.length >= 1 }))[0]?.id ?? '';
    s.decisions.append('a', decision(2));
    const msgs = await readStream(s.url, { query: `&lastEventId=${encodeURIComponent(id)}`, until: has('decision', 2) });
    expect(seqs(msgs, 'decision')).toEqual([2]);
  });

  it('sends a reset snapshot to an id from another daemon run or a cursor that fell out of the log', async () => {
    server = await startTestServer({}, 4);
    const s = server;
    for (let i = 1; i <= 2; i++) s.decisions.append('a', decision(i));
    const other = await readStream(s.url, { lastEventId: formatEventId({ boot: '0123456789abcdef', decisions: 1, events: 0 }), until: (m) => m.length >= 1 });
    expect(other[0]?.event).toBe('snapshot');
    expect((other[0]?.data as { reset: boolean }).reset).toBe(true);
    const boot = parseEventId(other[0]?.id)?.boot ?? '';
    for (let i = 3; i <= 10; i++) s.decisions.append('a', decision(i));
    const old = await readStream(s.url, { lastEventId: formatEventId({ boot, decisions: 2, events: 0 }), until: (m) => m.length >= 1 });
    expect(old[0]?.event).toBe('snapshot');
    expect((old[0]?.data as { reset: boolean; decisions: { seq: number }[] }).decisions.map((d) => d.seq)).toEqual([7, 8, 9, 10]);
  });

  it('refuses a stream without a ticket, with the API token in the URL, or with a used or expired ticket', async () => {
    let now = 1_000;
    server = await startTestServer({ now: () => now, ticketTtlMs: 500 });
    const url = server.url;
    expect((await fetch(`${url}/api/stream`)).status).toBe(401);
    expect((await fetch(`${url}/api/stream?ticket=${TOKEN}`)).status).toBe(401);
    expect((await fetch(`${url}/api/stream-ticket`, { method: 'POST' })).status).toBe(401);
    const ticket = async (): Promise<string> =>
      ((await (await fetch(`${url}/api/stream-ticket`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { ticket: string })
        .ticket;
    const t1 = await ticket();
    const ac = new AbortController();
    const ok = await fetch(`${url}/api/stream?ticket=${t1}`, { signal: ac.signal });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/event-stream/);
    ac.abort();
    expect((await fetch(`${url}/api/stream?ticket=${t1}`)).status).toBe(401);
    const t2 = await ticket();
    now += 501;
    expect((await fetch(`${url}/api/stream?ticket=${t2}`)).status).toBe(401);
  });

  it('serves the page and its bundle without the token, with a content security policy, and no data route without it', async () => {
    server = await startTestServer();
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('/dashboard/app.js');
    const js = await fetch(`${server.url}/dashboard/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    for (const path of ['/api/deployments', '/api/reports', '/metrics', '/dashboard/../api/deployments']) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(401);
    }
  });

  it('ends open streams when the server closes', async () => {
    server = await startTestServer();
    const s = server;
    let opened!: () => void;
    const snapshot = new Promise<void>((resolve) => (opened = resolve));
    // read until the server ends the stream; the first message proves the stream is open
    const reading = readStream(s.url, { until: (msgs) => (msgs.length > 0 && opened(), false) });
    await snapshot;
    await s.close();
    server = undefined;
    const msgs = await reading;
    expect(msgs[0]?.event).toBe('snapshot');
  });
});
