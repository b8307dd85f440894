/** DCA rooms of `dca_program_a`: global, per event type, per mint side, per wallet and per order. */
import type { MarketState } from '../model/market-state.js';
import type { SimEvent } from '../model/model-types.js';
import { dcaOrderView } from '../views/dca-views.js';
import type { DatastreamHub } from './datastream-hub.js';

type DcaEvent = Extract<SimEvent, { kind: 'dca' }>;
const P = 'dca:dca_program_a';

export function publishDca(state: MarketState, hub: DatastreamHub, e: DcaEvent): void {
  const o = e.order;
  const rooms = [P, `${P}:${e.eventName}`, `${P}:${o.outputMint}:buyers`, `${P}:${o.inputMint}:sellers`, `${P}:wallet:${o.wallet}`, `${P}:${o.address}`];
  const live = rooms.filter((r) => hub.has(r));
  const pos = `${P}:position`;
  if (live.length > 0) {
    const data = { eventName: e.eventName, programId: 'dca_program_a', signature: e.tx, timestamp: e.at, order: dcaOrderView(state, o) };
    for (const r of live) hub.publish(r, data);
  }
  if (hub.has(pos))
    hub.publish(pos, {
      programId: 'dca_program_a',
      order: dcaOrderView(state, o),
      writeVersion: o.fills * 3 + (o.status === 'completed' ? 2 : 1),
      timestamp: e.at,
    });
}
