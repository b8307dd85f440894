import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureRooms } from './room-sizes.js';

// docs/architecture.md, "Rooms": no function in src/ over 200 lines (closures included), no source
// file over 500, no folder over 25 files. Split along the seams the code has when one grows.
const rooms = measureRooms(join(import.meta.dirname, '..', '..', 'src'));

describe('the rooms of src/', () => {
  it('measures what it guards (the measure sees functions, files and folders)', () => {
    expect(rooms.functions.length).toBeGreaterThan(1000);
    expect(rooms.files.length).toBeGreaterThan(300);
    const lifecycle = rooms.functions.find((f) => f.name === 'createLifecycle' && f.file === join('core', 'lifecycle.ts'));
    expect(lifecycle?.lines).toBeGreaterThan(50);
  });

  it('has no function over 200 lines', () => {
    expect(rooms.functions.filter((f) => f.lines > 200).map((f) => `${f.file}:${f.line} ${f.name} ${f.lines}`)).toEqual([]);
  });

  it('has no source file over 500 lines', () => {
    expect(rooms.files.filter((f) => f.lines > 500).map((f) => `${f.file} ${f.lines}`)).toEqual([]);
  });

  it('has no folder over 25 files', () => {
    expect(rooms.folders.filter((f) => f.files > 25).map((f) => `${f.folder} ${f.files}`)).toEqual([]);
  });
});
