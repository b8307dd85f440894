/** The Datastream client: typed rooms, a connection that survives anything, and no missed events. */
export { createDatastreamClient, type DatastreamClient } from './datastream-client.js';
export { rooms, checkRoomName, type Room, type PayloadOf, type CurveMarket, type DcaEventRoom, type EnrichOption } from './rooms/rooms.js';
export { roomSpec, type RoomSpec, type RoomFamilyName, type BackfillScope } from './rooms/room-spec.js';
export { ROOM_FAMILIES, resolveRoom, familyOf, parseRoomMessage, type ResolvedRoom } from './rooms/room-registry.js';
export type { RoomFamily, FamilyName, FamilyItems, FamilyPayloads, RowFamilyName, RoomName, Delivery } from './rooms/room-family.js';
export type * from './rooms/payloads.js';
export { QUOTE_MINTS } from './rooms/payloads.js';
export { SAFETY_FIELDS } from './rooms/families/safety-family.js';
export { parseSwap, type SwapTrade } from './rooms/families/trade-families.js';
export type { DatastreamMessage, StreamGap as DatastreamGap } from './stream-message.js';
export type { DatastreamEvent } from './events.js';
export type { DatastreamStats, RoomStats, FamilyRejects } from './stats.js';
export type { BackfillSource, HistoryQuery, HistoryPage } from './backfill/backfill-source.js';
export type { Handler, OverflowPolicy } from './delivery/subscriber.js';
export type { ConnectionState, DownReason } from './connection/connection.js';
export { DATASTREAM_DEFAULTS, DATASTREAM_REMOTE_ROOM_WRITE_WINDOW_MS, type DatastreamClientOptions, type DatastreamKnobs } from './options.js';
export { checkLiquidityEvent } from './rooms/guards.js';
export { createConfirmedLiquidityView, type ConfirmedLiquidityView, type ConfirmedViewOptions, type ConfirmedViewStats } from './confirmed-view.js';
