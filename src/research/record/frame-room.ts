/**
 * The room of a raw Datastream frame without parsing it whole: a shared connection's recorder
 * reads it for every frame, so the common case is a string search. A frame whose text names a
 * room twice (a `room` field inside the payload too) or whose room is escaped is parsed.
 */
const KEY = '"room":"';

/** The top-level `room` of a frame's text; undefined for frames without one (pings, errors, acks) or that are not JSON. */
export function frameRoom(text: string): string | undefined {
  const at = text.indexOf(KEY);
  if (at < 0) return text.includes('"room"') ? parsedRoom(text) : undefined;
  const from = at + KEY.length;
  const end = text.indexOf('"', from);
  if (end < 0) return parsedRoom(text);
  const room = text.slice(from, end);
  if (room.includes('\\') || text.includes('"room"', end)) return parsedRoom(text);
  return room;
}

function parsedRoom(text: string): string | undefined {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null) return undefined;
    const room = (v as { room?: unknown }).room;
    return typeof room === 'string' ? room : undefined;
  } catch {
    return undefined;
  }
}
