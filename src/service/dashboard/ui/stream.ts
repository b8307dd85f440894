/**
 * Follows the daemon's Server-Sent Events stream: a single-use ticket per connection; on a drop it
 * reconnects with the last event id and gets exactly what it missed; after a daemon restart it
 * gets a snapshot and the page rebuilds.
 */
import { $, api, onSignOut, token } from './session.js';
import { applyDecision, applyEvent, applySnapshot, applyStatus, stats } from './store.js';

let source: EventSource | undefined;
let lastId = '';
let retryMs = 500;

onSignOut(() => {
  source?.close();
  source = undefined;
});

function setConnection(text: string, ok: boolean): void {
  const el = $('connection');
  el.textContent = text;
  el.className = ok ? 'ok' : 'bad';
}

/**
 * Opens the stream (and again after each drop); `onSnapshot` runs after a snapshot replaced the
 * store (the views start again), `changed` after every message.
 */
export async function connect(o: { readonly onSnapshot: () => void; readonly changed: () => void }): Promise<void> {
  if (!token()) return;
  setConnection('connecting…', false);
  let ticket: string;
  try {
    ticket = ((await api('/api/stream-ticket', 'POST', {})) as { ticket: string }).ticket;
  } catch (e) {
    if (!token()) return;
    setConnection(`daemon unreachable (${(e as Error).message}); retrying`, false);
    setTimeout(() => void connect(o), retryMs);
    retryMs = Math.min(retryMs * 2, 5_000);
    return;
  }
  const es = new EventSource(`/api/stream?ticket=${encodeURIComponent(ticket)}${lastId ? `&lastEventId=${encodeURIComponent(lastId)}` : ''}`);
  source = es;
  stats.connects++;
  const withId = (fn: (data: never, id: string) => void) => (e: MessageEvent<string>) => {
    stats.messages++;
    fn(JSON.parse(e.data) as never, e.lastEventId);
    if (e.lastEventId) lastId = e.lastEventId;
    o.changed();
  };
  es.addEventListener('open', () => {
    retryMs = 500;
    setConnection('live', true);
  });
  es.addEventListener(
    'snapshot',
    withId((s: Parameters<typeof applySnapshot>[0], id: string) => {
      applySnapshot(s, id);
      o.onSnapshot();
    }),
  );
  es.addEventListener('decision', withId(applyDecision));
  es.addEventListener('event', withId(applyEvent));
  es.addEventListener('status', withId(applyStatus));
  es.addEventListener('error', () => {
    // The ticket was single-use: reconnect by hand with a new one and the last id.
    es.close();
    if (source === es) source = undefined;
    setConnection('disconnected; reconnecting', false);
    setTimeout(() => void connect(o), retryMs);
  });
}
