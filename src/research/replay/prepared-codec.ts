/**
 * The binary codec of the prepared cache (prepared-cache.ts): a tree of JSON values (what
 * `JSON.parse` gives, plus `undefined`) as three columns, so decoding is a walk over typed arrays
 * with no text to scan:
 *
 * - `tags` (one byte a value): undefined, null, false, true, int32, float64, string, array, object;
 * - `ints` (Int32Array): int32 values, string indexes, array lengths and object shape indexes;
 * - `floats` (Float64Array): every other number, bit for bit (`-0` and all doubles survive);
 * - `strings`: each distinct string once (mints and room names repeat in almost every frame);
 * - `shapes`: each distinct key list once; an object is its shape and then its values in key order.
 *
 * Decoding rebuilds every object with its keys in the order they had, so a decoded value is
 * indistinguishable from the `JSON.parse` result it was encoded from.
 */
import { ChainpilotError } from '../../core/index.js';

const T_UNDEFINED = 0;
const T_NULL = 1;
const T_FALSE = 2;
const T_TRUE = 3;
const T_INT = 4;
const T_FLOAT = 5;
const T_STRING = 6;
const T_ARRAY = 7;
const T_OBJECT = 8;

/** An encoded value tree. */
export interface EncodedTree {
  readonly tags: Uint8Array;
  readonly ints: Int32Array;
  readonly floats: Float64Array;
  readonly strings: readonly string[];
  readonly shapes: readonly (readonly string[])[];
}

type Column = Uint8Array | Int32Array | Float64Array;

/** A typed array that doubles when full. */
function grow<A extends Column>(first: A, make: (n: number) => A): { push(v: number): void; truncate(to: number): void; done(): A } {
  let a = first;
  let n = 0;
  return {
    truncate(to) {
      n = to;
    },
    push(v) {
      if (n === a.length) {
        const b = make(a.length * 2);
        b.set(a);
        a = b;
      }
      a[n++] = v;
    },
    done: () => a.subarray(0, n) as A,
  };
}

const T_BIGINT = 9;

/**
 * Many trees in one set of columns (the prepared recording's): `write` appends one tree and returns
 * its index; a tree starts at the positions `starts` gives. A bigint is a value
 * (its decimal digits, interned like a string): domain events carry exact amounts as bigints.
 */
export interface TreeWriter {
  write(value: unknown): number;
  /** Interns a string (the prepared recording keeps rooms and mints in the same table). */
  intern(s: string): number;
  readonly count: number;
  done(): TreeColumns;
}

/** The columns of many trees, and where each starts. */
export interface TreeColumns extends EncodedTree {
  readonly startTag: Int32Array;
  readonly startInt: Int32Array;
  readonly startFloat: Int32Array;
}

export function createTreeWriter(): TreeWriter {
  const tags = grow(new Uint8Array(1 << 16), (n) => new Uint8Array(n));
  const ints = grow(new Int32Array(1 << 14), (n) => new Int32Array(n));
  const floats = grow(new Float64Array(1 << 12), (n) => new Float64Array(n));
  const startTag = grow(new Int32Array(1 << 10), (n) => new Int32Array(n));
  const startInt = grow(new Int32Array(1 << 10), (n) => new Int32Array(n));
  const startFloat = grow(new Int32Array(1 << 10), (n) => new Int32Array(n));
  let nTags = 0;
  let nInts = 0;
  let nFloats = 0;
  let count = 0;
  const strings: string[] = [];
  const stringIndex = new Map<string, number>();
  const shapes: string[][] = [];
  const shapeIndex = new Map<string, number>();
  const intern = (s: string): number => {
    let i = stringIndex.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      stringIndex.set(s, i);
    }
    return i;
  };
  const tag = (t: number): void => {
    tags.push(t);
    nTags++;
  };
  const int = (v: number): void => {
    ints.push(v);
    nInts++;
  };
  const visit = (v: unknown): void => {
    switch (typeof v) {
      case 'undefined': {
        tag(T_UNDEFINED);
        return;
      }
      case 'boolean': {
        tag(v ? T_TRUE : T_FALSE);
        return;
      }
      case 'number':
        if ((v | 0) === v && !(v === 0 && 1 / v < 0)) {
          tag(T_INT);
          int(v);
          return;
        }
        tag(T_FLOAT);
        floats.push(v);
        nFloats++;
        return;
      case 'string':
        tag(T_STRING);
        {
          int(intern(v));
          return;
        }
      case 'bigint':
        tag(T_BIGINT);
        {
          int(intern(v.toString()));
          return;
        }
      case 'object': {
        if (v === null) {
          tag(T_NULL);
          return;
        }
        if (Array.isArray(v)) {
          tag(T_ARRAY);
          int(v.length);
          for (let i = 0; i < v.length; i++) visit(v[i]);
          return;
        }
        if (Object.getPrototypeOf(v) !== Object.prototype)
          throw new ChainpilotError('CORE_INVALID_ARGUMENT', 'prepared recording: not a plain object', { retry: 'not_retryable' });
        const o = v as Record<string, unknown>;
        const keys = Object.keys(o);
        const sig = keys.join('\u0000');
        let si = shapeIndex.get(sig);
        if (si === undefined) {
          si = shapes.length;
          shapes.push(keys);
          shapeIndex.set(sig, si);
        }
        tag(T_OBJECT);
        int(si);
        for (let i = 0; i < keys.length; i++) visit(o[keys[i]!]);
        return;
      }
      default:
        throw new ChainpilotError('CORE_INVALID_ARGUMENT', `prepared recording: a ${typeof v} is not a value it holds`, { retry: 'not_retryable' });
    }
  };
  return {
    write(value) {
      const t0 = nTags;
      const i0 = nInts;
      const f0 = nFloats;
      try {
        visit(value);
      } catch (e) {
        // roll back what the failed tree appended (the caller stores the line another way)
        nTags = t0;
        nInts = i0;
        nFloats = f0;
        tags.truncate(t0);
        ints.truncate(i0);
        floats.truncate(f0);
        throw e;
      }
      startTag.push(t0);
      startInt.push(i0);
      startFloat.push(f0);
      return count++;
    },
    intern,
    get count() {
      return count;
    },
    done: () => ({
      tags: tags.done(),
      ints: ints.done(),
      floats: floats.done(),
      strings,
      shapes,
      startTag: startTag.done(),
      startInt: startInt.done(),
      startFloat: startFloat.done(),
    }),
  };
}

/**
 * The index of the tree being read and the reader's positions in its columns. `readTreeAt` runs for every stored
 * event a replay delivers: one reader at module level (reading never calls out, so never re-enters)
 * instead of a closure and its context per tree.
 */
let curIndex = 0;
let ti = 0;
let ii = 0;
let fi = 0;

const corrupt = (what: string): Error =>
  new ChainpilotError('RECORDING_CACHE_CORRUPT', `prepared recording: ${what} in value ${curIndex}`, { retry: 'not_retryable' });

function readValue(c: TreeColumns): unknown {
  switch (c.tags[ti++]) {
    case T_UNDEFINED:
      return undefined;
    case T_NULL:
      return null;
    case T_FALSE:
      return false;
    case T_TRUE:
      return true;
    case T_INT:
      return c.ints[ii++];
    case T_FLOAT:
      return c.floats[fi++];
    case T_STRING: {
      const s = c.strings[c.ints[ii++]!];
      if (s === undefined) throw corrupt('string index out of range');
      return s;
    }
    case T_BIGINT: {
      const s = c.strings[c.ints[ii++]!];
      if (s === undefined) throw corrupt('string index out of range');
      return BigInt(s);
    }
    case T_ARRAY: {
      const n = c.ints[ii++]!;
      if (!(n >= 0 && n <= c.tags.length - ti)) throw corrupt('bad array length');
      const a: unknown[] = [];
      for (let i = 0; i < n; i++) a.push(readValue(c));
      return a;
    }
    case T_OBJECT: {
      const keys = c.shapes[c.ints[ii++]!];
      if (keys === undefined) throw corrupt('shape index out of range');
      const o: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        if (k === '__proto__') Object.defineProperty(o, k, { value: readValue(c), enumerable: true, writable: true, configurable: true });
        else o[k] = readValue(c);
      }
      return o;
    }
    default:
      throw corrupt('unknown tag');
  }
}

/** Reads tree `i` of the columns (a fresh value each time: a replay may keep what it was given). */
export function readTreeAt(c: TreeColumns, index: number): unknown {
  curIndex = index;
  ti = c.startTag[index]!;
  ii = c.startInt[index]!;
  fi = c.startFloat[index]!;
  return readValue(c);
}
