/**
 * Builds the prepared form (prepared-recording.ts) one recording line at a time, so a recording is
 * never held as parsed objects: each frame goes through the client's guard and fingerprint and the
 * engine's normaliser once, here, and the replay later reads the result out of typed arrays.
 * A frame takes the fast form only when that is exactly what the live path would make of it; any
 * frame the client would reject, count or drop, or the normaliser would refuse, is kept as its
 * parsed value and replayed through the client's path (never approximated).
 */
import type { UnixMs } from '../../core/index.js';
import { fingerprintRows } from '../../client/datastream/dedup/event-key.js';
import { fpHi, fpLo } from '../../client/datastream/dedup/fingerprint.js';
import { fingerprintInto, parseRows, resolveRoom } from '../../client/datastream/rooms/room-registry.js';
import type { StreamMessage } from '../../engine/events/feed-port.js';
import { createNormaliser } from '../../engine/events/normalise.js';
import { createTreeWriter } from './prepared-codec.js';
import { encodePrepared, K, PF, type PreparedColumns, type PreparedMeta } from './prepared-recording.js';
import type { RecordingHeader, RecordLine } from './recording-format.js';

type Typed = Int32Array | Uint32Array | Uint8Array | Float64Array | BigInt64Array;

/** A typed column that doubles when full. */
class Col<A extends Typed> {
  private n = 0;
  constructor(
    private a: A,
    private readonly make: (n: number) => A,
  ) {}
  get length(): number {
    return this.n;
  }
  push(v: A extends BigInt64Array ? bigint : number): void {
    if (this.n === this.a.length) {
      const b = this.make(this.a.length * 2);
      b.set(this.a as never);
      this.a = b;
    }
    (this.a as unknown as (number | bigint)[])[this.n++] = v;
  }
  done(): A {
    return this.a.subarray(0, this.n) as A;
  }
}

const f64 = (): Col<Float64Array> => new Col(new Float64Array(1024), (n) => new Float64Array(n));
const i32 = (): Col<Int32Array> => new Col(new Int32Array(1024), (n) => new Int32Array(n));
const u32 = (): Col<Uint32Array> => new Col(new Uint32Array(1024), (n) => new Uint32Array(n));
const u8 = (): Col<Uint8Array> => new Col(new Uint8Array(1024), (n) => new Uint8Array(n));
const i64 = (): Col<BigInt64Array> => new Col(new BigInt64Array(256), (n) => new BigInt64Array(n));

export interface PreparedBuilder {
  /** Appends one recording line (in replay order). */
  add(line: RecordLine): void;
  readonly lines: number;
  /** The prepared bytes (in a SharedArrayBuffer with `shared`). */
  finish(
    files: readonly { readonly path: string; readonly sha256: string; readonly header: RecordingHeader }[],
    badLines: number,
    firstBad: string | undefined,
    stamp: { readonly key?: string | undefined; readonly chainpilot?: string | undefined },
    shared?: boolean,
  ): Uint8Array;
}

const SIMPLE_KINDS = { start: K.START, stop: K.STOP, drained: K.DRAINED, end: K.END } as const;

const isNum = (v: unknown): v is number | undefined => v === undefined || typeof v === 'number';
const isStr = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';

interface PriceRow {
  readonly mint: string | undefined;
  readonly sol: number | undefined;
  readonly usd: number | undefined;
  readonly aggregated: boolean;
  readonly pool: string | undefined;
  readonly market: string | undefined;
  readonly liq: number | undefined;
  readonly solRes: bigint | undefined;
  readonly tokenRes: bigint | undefined;
  readonly fee: number | undefined;
  readonly at: number | undefined;
}

const fitsI64 = (b: bigint | undefined): boolean => b === undefined || BigInt.asIntN(64, b) === b;

/**
 * The arguments the normaliser gives a price tick (src/engine/events/normalise.ts, `price` and
 * `aggregated-price`), except the SOL/USD rate it has learnt, which the replay keeps. Undefined when
 * the payload holds something the columns cannot say exactly (the frame is then kept whole).
 */
function priceRow(family: string, d: Record<string, unknown>, parts: readonly string[], receivedAt: number): PriceRow | undefined {
  if (family === 'price') {
    const inSol = d['price_quote'] ?? d['priceSol'];
    const liq = d['liquidity'];
    const liqUsd = typeof liq === 'number' ? liq : (liq as { usd?: unknown } | undefined)?.usd;
    const sr = d['solReserveLamports'];
    const tr = d['tokenReserveRaw'];
    const mint = d['token'] ?? parts[parts.length - 1] ?? '';
    const at = d['time'] ?? d['timestamp'] ?? receivedAt;
    if (!isNum(inSol) || !isNum(d['price']) || !isStr(d['pool']) || !isStr(d['market']) || !isNum(liqUsd) || !isNum(d['feeBps']) || !isNum(at) || !isStr(mint))
      return undefined;
    let solRes: bigint | undefined;
    let tokenRes: bigint | undefined;
    try {
      solRes = sr === undefined ? undefined : BigInt(sr as string);
      tokenRes = tr === undefined ? undefined : BigInt(tr as string);
    } catch {
      return undefined; // the normaliser throws on it: a bad frame, replayed through the client's path
    }
    if (!fitsI64(solRes) || !fitsI64(tokenRes)) return undefined;
    return { mint, sol: inSol, usd: d['price'], aggregated: false, pool: d['pool'], market: d['market'], liq: liqUsd, solRes, tokenRes, fee: d['feeBps'], at };
  }
  const inSol = typeof d['price_quote'] === 'number' ? d['price_quote'] : undefined;
  const mint = d['token'];
  const at = d['timestamp'];
  if (!isNum(d['price']) || !isStr(d['pool']) || !isStr(mint) || !isNum(at)) return undefined;
  return {
    mint,
    sol: inSol,
    usd: d['price'],
    aggregated: true,
    pool: d['pool'],
    market: undefined,
    liq: undefined,
    solRes: undefined,
    tokenRes: undefined,
    fee: undefined,
    at,
  };
}

/** A price row as the builder stores it. */
type PriceRowOf = NonNullable<ReturnType<typeof priceRow>>;

/** The price rows' columns (strings interned by `str`, an absent number NaN); `push` returns the row's index. */
function createPriceColumns(str: (s: string | undefined) => number) {
  const num = (v: number | undefined): number => (v === undefined ? Number.NaN : v);
  const c = {
    mint: i32(),
    sol: f64(),
    usd: f64(),
    flags: u8(),
    pool: i32(),
    market: i32(),
    liq: f64(),
    fee: f64(),
    solRes: i64(),
    tokenRes: i64(),
    at: f64(),
  };
  return {
    push(pr: PriceRowOf): number {
      const row = c.mint.length;
      c.mint.push(str(pr.mint));
      c.sol.push(num(pr.sol));
      c.usd.push(num(pr.usd));
      c.flags.push((pr.aggregated ? PF.AGGREGATED : 0) | (pr.solRes !== undefined ? PF.SOL_RES : 0) | (pr.tokenRes !== undefined ? PF.TOKEN_RES : 0));
      c.pool.push(str(pr.pool));
      c.market.push(str(pr.market));
      c.liq.push(num(pr.liq));
      c.fee.push(num(pr.fee));
      c.solRes.push(pr.solRes ?? 0n);
      c.tokenRes.push(pr.tokenRes ?? 0n);
      c.at.push(num(pr.at));
      return row;
    },
    done() {
      return {
        pMint: c.mint.done(),
        pSol: c.sol.done(),
        pUsd: c.usd.done(),
        pFlags: c.flags.done(),
        pPool: c.pool.done(),
        pMarket: c.market.done(),
        pLiq: c.liq.done(),
        pFee: c.fee.done(),
        pSolRes: c.solRes.done(),
        pTokenRes: c.tokenRes.done(),
        pAt: c.at.done(),
      };
    },
  };
}

export function createPreparedBuilder(): PreparedBuilder {
  const tree = createTreeWriter();
  const kind = u8();
  const t = f64();
  const rt = f64();
  const room = i32();
  const aux = i32();
  const fp = i32();
  const fpHiCol = u32();
  const fpLoCol = u32();
  const normaliser = createNormaliser(); // only its stateless families are used (price ticks are built at replay)
  const recordedRooms = new Set<number>();
  let rows = 0;
  let startT: number | null = null;
  let lastEndT: number | null = null;
  let lastT: number | null = null;
  let endIndex = -1;
  let lastEndIndex = -1;
  let lastDrainedIndex = -1;
  let hi = new Uint32Array(16);
  let lo = new Uint32Array(16);

  const str = (s: string | undefined): number => (s === undefined ? -1 : tree.intern(s));
  const prices = createPriceColumns(str);

  const line = (k: number, time: number, receivedAt: number, roomIx: number, auxIx: number, fpIx: number): void => {
    kind.push(k);
    t.push(time);
    rt.push(receivedAt);
    room.push(roomIx);
    aux.push(auxIx);
    fp.push(fpIx);
  };

  /** The frame's fast form, when there is one that is exactly the live path's; false to keep it whole. */
  const fastFrame = (frame: Record<string, unknown>, time: number, receivedAt: number): boolean => {
    const roomName = frame['room'] as string;
    const r = resolveRoom(roomName);
    const f = r.family;
    if (f.name === 'unknown') return false;
    const data = frame['data'];
    const roomIx = tree.intern(roomName);
    const hasIdentity = f.identity !== undefined;
    if (f.rows) {
      const parsed = parseRows(r, data);
      if (parsed.rejected > 0 || parsed.items.length === 0) return false;
      const n = parsed.items.length;
      let treeIx: number;
      try {
        treeIx = tree.write(parsed.items);
      } catch {
        return false;
      }
      let fpIx = -1;
      if (hasIdentity) {
        if (hi.length < n) {
          hi = new Uint32Array(n * 2);
          lo = new Uint32Array(n * 2);
        }
        fingerprintRows(r, parsed.items, hi, lo);
        fpIx = fpHiCol.length;
        for (let i = 0; i < n; i++) {
          fpHiCol.push(hi[i]!);
          fpLoCol.push(lo[i]!);
        }
      }
      line(K.ROWS, time, receivedAt, roomIx, treeIx, fpIx);
      return true;
    }
    const v = f.parse(data, r.name);
    if (typeof v === 'string') return false;
    const fpOf = (): number => {
      if (!hasIdentity) return -1;
      fingerprintInto(r, v);
      fpHiCol.push(fpHi());
      fpLoCol.push(fpLo());
      return fpHiCol.length - 1;
    };
    if (f.name === 'price' || f.name === 'aggregated-price') {
      const parts = roomName.split(':');
      if (parts[parts.length - 1] === 'enriched') parts.pop();
      const pr = priceRow(f.name, v as Record<string, unknown>, parts, receivedAt);
      if (pr === undefined) return false;
      const row = prices.push(pr);
      line(K.PRICE, time, receivedAt, roomIx, row, fpOf());
      return true;
    }
    const commitment = f.provisional ? 'processed' : 'unspecified';
    const msg = { room: roomName, family: f.name, data: v, receivedAt: receivedAt as UnixMs, origin: 'live', commitment } as StreamMessage;
    let ev: unknown;
    try {
      const out = normaliser.events(msg);
      if (Array.isArray(out)) {
        if (out.length !== 1) return false;
        ev = out[0];
      } else ev = out;
    } catch {
      return false; // a bad frame: the engine's own normaliser counts it on the client's path
    }
    let treeIx: number;
    try {
      treeIx = tree.write(ev);
    } catch {
      return false;
    }
    line(K.EVENT, time, receivedAt, roomIx, treeIx, fpOf());
    return true;
  };

  const add = (l: RecordLine): void => {
    const index = kind.length;
    lastT = l.t;
    switch (l.kind) {
      case 'frame': {
        const receivedAt = l.rt ?? l.t;
        const frame = l.frame as { room?: unknown; data?: unknown; type?: unknown } | undefined;
        const data = frame?.data;
        rows += Array.isArray(data) ? Math.max(1, data.length) : 1;
        if (typeof frame?.room === 'string') recordedRooms.add(tree.intern(frame.room));
        if (l.frame === undefined) {
          line(K.TEXT, l.t, receivedAt, -1, tree.write(l.text ?? ''), -1);
          return;
        }
        const value: unknown = l.frame;
        const plain = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
        if (plain && frame?.type === 'message' && typeof frame.room === 'string' && fastFrame(value as Record<string, unknown>, l.t, receivedAt)) return;
        line(K.RAW, l.t, receivedAt, -1, tree.write(l.frame), -1);
        return;
      }
      case 'conn':
        line(K.CONN, l.t, l.t, -1, -1, -1);
        return;
      case 'gap':
        line(K.GAP, l.t, l.t, -1, tree.write({ startedAt: l.startedAt, endedAt: l.endedAt, rooms: l.rooms }), -1);
        return;
      case 'data':
        line(K.DATA, l.t, l.t, -1, tree.write(l), -1);
        return;
      case 'manual':
        line(K.MANUAL, l.t, l.t, -1, tree.write(l.entry), -1);
        return;
      case 'control':
        line(K.CONTROL, l.t, l.t, -1, tree.write(l.mark), -1);
        return;
      default: {
        if (l.kind === 'start') startT ??= l.t;
        else if (l.kind === 'end') {
          lastEndT = l.t;
          lastEndIndex = index;
        } else if (l.kind === 'drained') lastDrainedIndex = index;
        line(SIMPLE_KINDS[l.kind], l.t, l.t, -1, -1, -1);
      }
    }
  };

  return {
    add,
    get lines() {
      return kind.length;
    },
    finish(files, badLines, firstBad, stamp, shared = false) {
      endIndex = lastDrainedIndex >= 0 ? lastDrainedIndex : lastEndIndex;
      const treeCols = tree.done();
      const cols: PreparedColumns = {
        kind: kind.done(),
        t: t.done(),
        rt: rt.done(),
        room: room.done(),
        aux: aux.done(),
        fp: fp.done(),
        fpHi: fpHiCol.done(),
        fpLo: fpLoCol.done(),
        ...prices.done(),
        tree: treeCols,
      };
      const meta: PreparedMeta = {
        files,
        badLines,
        firstBad: firstBad ?? null,
        recordedRooms: [...recordedRooms],
        rows,
        startT,
        lastEndT,
        lastT,
        endIndex,
        ...(stamp.key !== undefined ? { key: stamp.key } : {}),
        ...(stamp.chainpilot !== undefined ? { chainpilot: stamp.chainpilot } : {}),
      };
      return encodePrepared(cols, meta, shared);
    },
  };
}
