/**
 * The limits every byte from the service must respect before anything else looks at it, in one
 * table shared by the Datastream socket and every REST, JSON-RPC and swap client: how deep a JSON
 * value may nest, how large one message or body may be, and how many frames one WebSocket message
 * may be cut into. A peer that breaks one is refused with a coded error (REST) or a close code
 * (Datastream); memory stays bounded whatever it sends.
 */
export { exceedsDepth, mayExceedDepth } from './datastream/connection/frame-limits.js';

export const WIRE_LIMITS = Object.freeze({
  /** Deepest nesting of objects and arrays in a Datastream frame or a REST body (the value itself is level 1). */
  maxJsonDepth: 64,
  /** Largest Datastream message (all fragments together), in bytes. */
  maxFrameBytes: 4 * 1024 * 1024,
  /** Most frames one fragmented WebSocket message may arrive in (the first frame and its continuations, empty ones too). */
  maxMessageFragments: 1_024,
  /** Largest REST, JSON-RPC or swap response body, in bytes. */
  maxResponseBytes: 64 * 1024 * 1024,
  /** Most bytes of REST, JSON-RPC and swap response bodies being read at once, all requests of the process together (two of the largest). */
  maxInFlightResponseBytes: 128 * 1024 * 1024,
});
