/** The room of a raw frame, read by a shared connection's recorder without parsing the common frame. */
import { describe, expect, it } from 'vitest';
import { frameRoom } from '../../src/research/record/frame-room.js';

describe('frameRoom', () => {
  it('reads the top-level room of a message frame wherever the key stands', () => {
    expect(frameRoom('{"type":"message","room":"price:token:M1","data":{"price":1}}')).toBe('price:token:M1');
    expect(frameRoom('{"data":{"price":1},"room":"latest","type":"message"}')).toBe('latest');
    expect(frameRoom('{"type":"message", "room" : "graduated","data":{}}')).toBe('graduated');
  });

  it('parses frames that name a room inside the payload too, or whose room is escaped', () => {
    expect(frameRoom('{"data":{"room":"inner"},"type":"message","room":"outer"}')).toBe('outer');
    expect(frameRoom('{"type":"message","room":"a\\"b","data":{}}')).toBe('a"b');
  });

  it('gives undefined for frames of no room and for text that is not JSON', () => {
    expect(frameRoom('{"type":"ping"}')).toBeUndefined();
    expect(frameRoom('{"type":"error","message":"bad"}')).toBeUndefined();
    expect(frameRoom('{"type":"error","room":7}')).toBeUndefined();
    expect(frameRoom('not json "room":"x')).toBeUndefined();
  });
});
