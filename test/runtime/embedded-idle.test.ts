/**
 * The lockstep idle test of a run on the embedded simulator (narrow fakes of what it reads: the
 * hub's counters and the client's state, frames and rooms).
 */
import { describe, expect, it } from 'vitest';
import type { ConnectionState } from '../../src/client/datastream/connection/connection.js';
import type { EmbeddedSim } from '../../src/runtime/embedded/embedded-sim.js';
import type { OwnedConnection } from '../../src/runtime/compose/run-common.js';
import { embeddedIdle } from '../../src/runtime/compose/run-endpoint.js';

function world() {
  const hub = { framesSent: 0, rooms: 0, refusedRooms: 0 };
  const client = { state: 'open' as ConnectionState, received: 0, rooms: [] as string[], rest: 0 };
  const sim = { sim: { stats: () => ({ ...hub }) } } as unknown as EmbeddedSim;
  const owned = {
    client: {
      get state() {
        return client.state;
      },
      framesReceived: () => client.received,
      rooms: () => client.rooms,
    },
    rest: { inFlight: () => client.rest },
  } as unknown as OwnedConnection;
  return { hub, client, idle: embeddedIdle(sim, owned) };
}

describe('embeddedIdle', () => {
  it('waits for frames sent and rooms joined while the socket is open', () => {
    const { hub, client, idle } = world();
    client.rooms = ['latest'];
    hub.framesSent = 3;
    expect(idle.idle()).toBe(false); // frames on the way, join not seen
    client.received = 3;
    expect(idle.idle()).toBe(false); // join not known to the hub yet
    hub.rooms = 1;
    expect(idle.idle()).toBe(true);
    client.rest = 1;
    expect(idle.idle()).toBe(false); // a REST answer on the way
  });

  it('is idle without a socket (reconnect backoff) though it holds rooms, and writes off the frames the dropped socket never got', () => {
    const { hub, client, idle } = world();
    client.rooms = ['latest', 'price:mintA'];
    hub.rooms = 2;
    hub.framesSent = 10;
    client.received = 7; // three frames went to the socket that dropped
    client.state = 'backoff';
    hub.rooms = 0; // the hub forgot the dropped socket's rooms
    expect(idle.idle()).toBe(true);
    client.state = 'connecting';
    expect(idle.idle()).toBe(false);
    // reconnected and joined again: the three lost frames no longer count as on the way
    client.state = 'open';
    hub.rooms = 2;
    expect(idle.idle()).toBe(true);
    hub.framesSent = 11;
    expect(idle.idle()).toBe(false);
    client.received = 8;
    expect(idle.idle()).toBe(true);
  });
});
