/** A control app with the dashboard routes on real sockets, over real event logs and no deployments. */
import type { FastifyInstance } from 'fastify';
import { silentLogger, systemClock } from '../../src/core/index.js';
import type { DecisionEntry, DeploymentEvent } from '../../src/runtime/handle/deployment-handle.js';
import { buildControlApp } from '../../src/service/daemon/control-app.js';
import { createDaemonMetrics } from '../../src/service/daemon/daemon-metrics.js';
import { createEventLog, type EventLog } from '../../src/service/event-log.js';
import type { DaemonView } from '../../src/service/service-port.js';
import type { Supervisor } from '../../src/service/daemon/supervisor.js';
import { createDashboard, type DashboardOptions } from '../../src/service/dashboard/dashboard-routes.js';

export const TOKEN = 'dashboard-unit-token-0123456789';

export interface TestServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly decisions: EventLog<DecisionEntry>;
  readonly events: EventLog<DeploymentEvent>;
  close(): Promise<void>;
}

export async function startTestServer(o: DashboardOptions = {}, capacity = 1_000): Promise<TestServer> {
  const fail = (e: unknown): void => {
    throw e;
  };
  const decisions = createEventLog<DecisionEntry>(capacity, fail);
  const events = createEventLog<DeploymentEvent>(capacity, fail);
  const supervisor = { list: () => [], get: () => undefined } as unknown as Supervisor;
  const metrics = createDaemonMetrics({ slots: () => [], processMetrics: false });
  const view: DaemonView = { supervisor, decisions, events };
  const dashboard = createDashboard(o);
  const app = buildControlApp({
    supervisor,
    decisions,
    metrics,
    reload: async () => ({ added: [], removed: [], changed: [], unchanged: [], invalid: [] }),
    token: TOKEN,
    version: 'test',
    clock: systemClock(),
    log: silentLogger(),
    plugins: [dashboard.plugin(view)],
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, app, decisions, events, close: () => app.close() };
}

export const decision = (n: number): DecisionEntry => ({
  kind: 'denied',
  at: n,
  strategyId: 's',
  side: 'buy',
  mint: `mint${n}`,
  amountIn: '100',
  code: 'RISK_KILL_SWITCH',
  reason: 'killed',
});

export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: unknown;
}

/** Opens the stream (with a fresh ticket) and collects messages until `until` says stop. */
export async function readStream(url: string, o: { lastEventId?: string; query?: string; until: (msgs: SseMessage[]) => boolean }): Promise<SseMessage[]> {
  const t = (await (await fetch(`${url}/api/stream-ticket`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { ticket: string };
  const ac = new AbortController();
  const res = await fetch(`${url}/api/stream?ticket=${t.ticket}${o.query ?? ''}`, {
    headers: o.lastEventId ? { 'last-event-id': o.lastEventId } : {},
    signal: ac.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`stream refused: ${res.status} ${await res.text()}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  const msgs: SseMessage[] = [];
  try {
    while (!o.until(msgs)) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (block.startsWith(':')) continue;
        const field = (name: string): string | undefined =>
          block
            .split('\n')
            .find((l) => l.startsWith(`${name}: `))
            ?.slice(name.length + 2);
        msgs.push({ id: field('id'), event: field('event') ?? 'message', data: JSON.parse(field('data') ?? 'null') as unknown });
      }
    }
  } finally {
    ac.abort();
  }
  return msgs;
}
