/**
 * The room builders (core/room-names.ts, shared with the engine and the strategy API) with the
 * client's payload typing: `PayloadOf<Room<F>>` is the payload of family `F`.
 */
import type { Room as RoomOf } from '../../../core/room-names.js';
import type { FamilyName, FamilyPayloads } from './room-family.js';

export { rooms, checkRoomName, type CurveMarket, type DcaEventRoom, type EnrichOption } from '../../../core/room-names.js';

/** A room name of family `F`, whose messages carry `FamilyPayloads[F]` (a phantom brand on a plain string). */
export type Room<F extends FamilyName = FamilyName> = RoomOf<F>;

/** The payload type of a branded room. */
export type PayloadOf<R> = R extends RoomOf<infer F> ? (F extends FamilyName ? FamilyPayloads[F] : unknown) : unknown;
