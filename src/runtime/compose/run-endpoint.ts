/**
 * The endpoint of a run, shared by the paper and live composition roots: the injected connection
 * (daemon share, replay), the remote service, or the embedded simulator started in process (its
 * clock becomes the run's), each with the deployment's `record:` tap when it sets one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ChainpilotError, systemClock, type Clock } from '../../core/index.js';
import type { AssemblyContext } from './assembly.js';
import type { FeedConnection } from '../handle/deployment-handle.js';
import type { ClientWork } from '../embedded/client-work.js';
import { MAX_SPEED_START_AT, startEmbeddedSim, type EmbeddedSim, type LockstepIdle } from '../embedded/embedded-sim.js';
import type { RunRecorderContext, RunTap } from './recording-port.js';
import { connectFeed, type OwnedConnection } from './run-common.js';
import { DATASTREAM_REMOTE_ROOM_WRITE_WINDOW_MS } from '../../client/datastream/options.js';

/** Liveness of the Datastream client on the embedded simulator: a loopback socket in process, on simulated time. */
export const EMBEDDED_LIVENESS_MS = 24 * 3_600_000;

/**
 * Identity of a remote market: the base URL's origin and a hash of the whole URL (a key in its
 * path or query never shows). The service behind a URL is taken to be one persistent market.
 */
export function remoteMarket(baseUrl: string): string {
  let origin = 'remote';
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    // not a URL: the hash alone names it
  }
  return `remote ${origin} #${createHash('sha256').update(baseUrl).digest('hex').slice(0, 12)}`;
}

/** Identity of one embedded simulator instance: each one is a fresh market, even with the same seed. */
export function simulatorMarket(seed: number): string {
  return `embedded simulator seed ${seed} #${randomBytes(6).toString('hex')}`;
}

/** The feed connection and clock of a run: injected, the embedded simulator, or the remote service; `market` names what it trades on. */
export async function openEndpoint(
  c: AssemblyContext,
  services?: Parameters<typeof startEmbeddedSim>[0]['services'],
  /** Start the embedded simulator at {@link MAX_SPEED_START_AT} at every speed (a live rehearsal: two runs of one seed see the same instants). */
  fixedStart = false,
): Promise<{ clock: Clock; connection: FeedConnection; market: string; owned?: OwnedConnection; sim?: EmbeddedSim }> {
  const d = c.deployment;
  const injected = c.deps.connection;
  if (injected) {
    // The holder's share of a shared (daemon) or replay connection: released, never closed here.
    c.own(() => injected.release());
    const clock = c.deps.clock ?? systemClock();
    const market = c.deps.market ?? 'the injected feed';
    // `record:` on a shared connection: this holder's rooms only (run-recorder.ts). A replay has no tap.
    const rec = injected.recordTap ? openRecorder(c, { clock, redactor: c.redactor, log: c.log, seed: c.seed, simulator: !d.endpoints.remote }) : undefined;
    if (!rec || !injected.recordTap) return { clock, connection: injected, market };
    const share = await rec.share(injected.feed, injected.data, injected.recordTap);
    c.onStopPhase((phase) => rec.mark(phase));
    c.onManual((entry) => rec.manual(entry));
    c.onControl((mark) => rec.control(mark));
    c.own(async () => {
      await share.stop();
    });
    return { clock, connection: { ...injected, feed: share.feed, data: share.data }, market };
  }
  const knobs = c.deps.datastream ?? {};
  if (d.endpoints.remote) {
    const clock = c.deps.clock ?? systemClock();
    const r = d.endpoints.remote;
    const rec = openRecorder(c, { clock, redactor: c.redactor, log: c.log, seed: c.seed, simulator: false });
    const owned = connectFeed({
      baseUrl: r.baseUrl,
      datastreamUrl: r.datastreamUrl,
      apiKey: r.apiKey,
      redactor: c.redactor,
      seed: c.seed,
      clock,
      // joins and leaves coalesced (not on a lockstep simulator, which waits for every join)
      knobs: { roomWriteWindowMs: DATASTREAM_REMOTE_ROOM_WRITE_WINDOW_MS, ...knobs },
      ...(rec ? { onRawFrame: rec.onRawFrame } : {}),
      ...(c.deps.telemetry ? { telemetry: c.deps.telemetry.client } : {}),
    });
    c.own(() => owned.release());
    return { clock, connection: await recorded(c, owned, rec), owned, market: remoteMarket(r.baseUrl) };
  }
  const speed = c.deps.speed ?? d.endpoints.simulator?.speed ?? 60;
  const sim = await startEmbeddedSim({
    seed: c.seed,
    speed,
    redactor: c.redactor,
    log: c.log.child({ part: 'sim' }),
    ...(services ? { services } : {}),
    ...(c.deps.simulatorClock ? { clock: c.deps.simulatorClock } : {}),
    ...(c.deps.simulatorStartAt !== undefined ? { startAt: c.deps.simulatorStartAt } : fixedStart ? { startAt: MAX_SPEED_START_AT } : {}),
  });
  c.own(() => sim.stop());
  const rec = openRecorder(c, { clock: sim.clock, redactor: c.redactor, log: c.log, seed: c.seed, simulator: true });
  const owned = connectFeed({
    baseUrl: sim.sim.urls.base,
    datastreamUrl: sim.sim.urls.datastream,
    apiKey: sim.apiKey,
    redactor: c.redactor,
    seed: c.seed,
    clock: sim.clock,
    knobs: { livenessTimeoutMs: EMBEDDED_LIVENESS_MS, ...knobs },
    ...(rec ? { onRawFrame: rec.onRawFrame } : {}),
    ...(c.deps.telemetry ? { telemetry: c.deps.telemetry.client } : {}),
  });
  c.own(() => owned.release());
  return { clock: sim.clock, connection: await recorded(c, owned, rec), owned, sim, market: simulatorMarket(c.seed) };
}

/**
 * The run's recorder when the deployment sets `record:`, through the recording port the composer
 * handed in (`deps.recording`: the CLI and the daemon give research's `runRecording`).
 */
function openRecorder(c: AssemblyContext, rc: RunRecorderContext): RunTap | undefined {
  if (!c.deployment.record) return undefined;
  if (!c.deps.recording) {
    throw new ChainpilotError(
      'RUNTIME_START_FAILED',
      `${c.deployment.name} sets record: but this run was composed without a recorder; pass deps.recording (runRecording from src/research/record/run-recorder.ts), or remove record:`,
      { retry: 'not_retryable', context: { field: 'record' } },
    );
  }
  return c.deps.recording.open(c.deployment, rc);
}

/**
 * With `record:` set, the recorder taps the connection (raw frames, connection events, ctx.data
 * answers) from now until the handle stops; otherwise the connection as it is.
 */
async function recorded(c: AssemblyContext, owned: OwnedConnection, rec: RunTap | undefined): Promise<FeedConnection> {
  if (!rec) return owned;
  const unwatch = rec.watch(owned.client);
  await rec.start();
  c.onStopPhase((phase) => rec.mark(phase));
  c.onManual((entry) => rec.manual(entry));
  c.onControl((mark) => rec.control(mark));
  c.own(async () => {
    unwatch();
    rec.end();
    await rec.stop();
  });
  return { ...owned, data: rec.data(owned.data) };
}

/**
 * Lockstep idle test of a run on the embedded simulator: every frame sent arrived, every room
 * joined is known to the server (no join lost to a race), no REST in flight. Frames sent to a
 * socket that was dropped never arrive: a forced step writes them off, and so does a client without
 * a socket (in its reconnect backoff), which is idle: the clock must move for its backoff to end.
 * With `work` (a live rehearsal), the client's work in flight holds the clock too, and a step ends
 * where one of its waits on the clock ended.
 */
export function embeddedIdle(sim: EmbeddedSim, owned: OwnedConnection, work?: ClientWork): LockstepIdle {
  let lost = 0;
  return {
    // a live rehearsal's: the driver then also steps on a fixed grid at every speed (repeatable runs of one seed)
    ...(work ? { woke: () => work.woke() } : {}),
    idle() {
      if (owned.client.state === 'connecting' || owned.rest.inFlight() > 0 || work?.busy() === true) return false;
      const hub = sim.sim.stats();
      if (owned.client.state !== 'open') {
        // No socket (waiting out a reconnect backoff, or stopped): nothing more can arrive, and the
        // rooms it holds are joined again on reconnect. Waiting here stalled the clock that the
        // backoff itself waits on, a forced step at a time.
        lost = Math.max(lost, hub.framesSent - owned.client.framesReceived());
        return true;
      }
      // Joins the hub refused (ROOM_LIMIT) are known to it too: the client still holds them.
      return owned.client.framesReceived() + lost >= hub.framesSent && hub.rooms + hub.refusedRooms >= owned.client.rooms().length;
    },
    resync() {
      lost = Math.max(lost, sim.sim.stats().framesSent - owned.client.framesReceived());
    },
  };
}
