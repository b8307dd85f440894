/** The example of docs/datastream.md (line 12); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
import type { BackfillSource } from '../../../src/index.js';
declare const restHistory: BackfillSource;
declare const mint: string;
declare const pool: string;
declare const log: { warn(o: object, msg: string): void };
declare function alert(e: unknown): void;
// #region doc
import { createDatastreamClient, rooms, systemClock, seededRandom } from '../../../src/index.js';

const ds = createDatastreamClient({
  url: 'wss://datastream.example',      // without the key
  apiKey: process.env.DATASTREAM_KEY!,  // appended as the last path segment, never logged
  clock: systemClock(),                 // default; tests pass manualClock()
  random: seededRandom('datastream'),   // backoff jitter
  backfill: restHistory,                // a BackfillSource (see below); optional
});

const off = ds.subscribe(rooms.liquidity(mint, { pool }), (msg) => {
  // msg.family: 'liquidity'; msg.data: readonly LiquidityEvent[]   (typed from the room builder)
  // msg.origin: 'live' | 'backfill'; msg.commitment: 'processed' | 'confirmed' | 'unspecified'
});
ds.onGap((gap) => log.warn({ gap }, 'stream gap'));   // {startedAt, endedAt, rooms}
ds.onEvent((e) => { if (e.kind === 'stopped') alert(e.error); });
// ...
off();        // the last unsubscribe of a room sends one `leave`
ds.close();   // final
// #endregion doc
