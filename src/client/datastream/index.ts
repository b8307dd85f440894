/** The Datastream client: typed rooms, a connection that survives anything, and no missed events. */
export { createDatastreamClient, type DatastreamClient } from './datastream-client.js';
export { rooms, type Room, type PayloadOf, type CurveMarket, type DcaEventRoom, type EnrichOption } from './rooms.js';
export { roomSpec, type RoomSpec, type RoomFamily, type BackfillScope } from './room-spec.js';
export type * from './payloads.js';
export type { DatastreamMessage, StreamGap as DatastreamGap } from './stream-message.js';
export type { DatastreamEvent } from './events.js';
export type { DatastreamStats, RoomStats } from './stats.js';
export type { BackfillSource, HistoryQuery, HistoryPage } from './backfill-source.js';
export type { Handler, OverflowPolicy } from './delivery.js';
export type { ConnectionState, DownReason } from './connection.js';
export { DATASTREAM_DEFAULTS, type DatastreamClientOptions, type DatastreamKnobs } from './options.js';
export { checkLiquidityEvent, checkSwapEvent, checkObjectPayload } from './guards.js';
export { createConfirmedLiquidityView, type ConfirmedLiquidityView, type ConfirmedViewOptions, type ConfirmedViewStats } from './confirmed-view.js';
