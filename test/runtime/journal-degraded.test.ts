/**
 * Issue 38 case 4, the runtime's side: the live executor's journal outage (`onJournalHealth`) makes
 * the deployment degraded through the run conditions (readiness names the code, an error alert
 * when it begins and an info alert when it ends, one of each per outage), and the notifier turns
 * those alerts into one notification each. Real run conditions, handle events and event mapper.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger, type UnixMs } from '../../src/core/index.js';
import type { DeploymentEvent } from '../../src/runtime/handle/deployment-handle.js';
import { createHandleEvents } from '../../src/runtime/handle/handle-events.js';
import { createRunConditions } from '../../src/runtime/handle/run-conditions.js';
import { createEventMapper } from '../../src/service/notify/messages.js';

function conditions() {
  const now = (): UnixMs => 1_000 as UnixMs;
  const events = createHandleEvents({ log: silentLogger(), counters: {}, now });
  const seen: DeploymentEvent[] = [];
  events.on((e) => void seen.push(e));
  const c = createRunConditions({
    name: 'live-j',
    onLoss: 'pause-entries',
    log: silentLogger(),
    events,
    counters: {},
    now,
    killReason: () => undefined,
    controls: events.fanout('control'),
  });
  return { c, seen };
}

describe('a deployment whose journal cannot write', () => {
  it('is degraded with the reason until the journal writes again, alerting once when it begins and once when it ends', () => {
    const { c, seen } = conditions();
    const reason = 'LIVE_JOURNAL_UNAVAILABLE: journal resolve of intent i1 failed: SqliteError: database or disk is full';
    c.degrade('LIVE_JOURNAL_UNAVAILABLE', reason);
    c.degrade('LIVE_JOURNAL_UNAVAILABLE', `${reason} (again)`); // the same outage: no second alert
    expect(c.degradations).toEqual([{ code: 'LIVE_JOURNAL_UNAVAILABLE', message: `${reason} (again)` }]);
    c.degrade('LIVE_JOURNAL_UNAVAILABLE', undefined);
    c.degrade('LIVE_JOURNAL_UNAVAILABLE', undefined);
    expect(c.degradations).toEqual([]);
    const alerts = seen.filter((e) => e.type === 'alert');
    expect(alerts.map((a) => (a.type === 'alert' ? [a.level, a.code] : []))).toEqual([
      ['error', 'LIVE_JOURNAL_UNAVAILABLE'],
      ['info', 'LIVE_JOURNAL_UNAVAILABLE'],
    ]);

    // the notifier sends one notification per edge, under the `fatal` event (degraded, then recovered)
    const map = createEventMapper();
    const drafts = alerts.map((a, i) => map('live-j', i, a));
    expect(drafts.map((d) => [d?.event, d?.data])).toEqual([
      ['fatal', { state: 'degraded', code: 'LIVE_JOURNAL_UNAVAILABLE' }],
      ['fatal', { state: 'recovered', code: 'LIVE_JOURNAL_UNAVAILABLE' }],
    ]);
    expect(drafts[0]?.text).toBe(`live-j: degraded: ${reason}`);
    expect(drafts[1]?.text).toBe('live-j: the journal writes again; no longer degraded');
  });
});
