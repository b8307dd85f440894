/**
 * Silent rooms, made loud: rooms a backtest's strategies joined that have no frame in the data.
 * Most are harmless (a token's `sniper:` room stays quiet when no sniper trades it, in the recorded
 * run as in the replay); the ones that matter are rooms of a **kind the data never holds**: a curve
 * milestone the recording was not made at, or a room family a download cannot rebuild. Those blind
 * the strategy silently, so the terminal, report.html and sweep.html say so.
 *
 * A room's kind is its name with every address-like segment (base58, 32 to 44 characters) written
 * `*`: `holders:7xKX…` is `holders:*`, `venue_a:curve:40` is itself. A silent room is
 * - `absent` when the recording's header declares its kind absent (a download, see
 *   docs/backtesting.md), or
 * - `missing` when no room of its kind has a frame in the data (nor is its kind declared covered),
 * - else quiet (its kind is in the data: the room was silent, as it was when recorded).
 */

/** One kind of room the strategies joined and the data never holds. */
export interface SilentRoomKind {
  /** The room's kind (`holders:*`, `venue_a:curve:40`). */
  readonly kind: string;
  /** Rooms of this kind joined in the run. */
  readonly rooms: number;
  /** Up to three of them. */
  readonly examples: readonly string[];
  /** `absent`: the recording says it cannot hold this kind; `missing`: no frame of this kind in it. */
  readonly why: 'absent' | 'missing';
}

export interface SilentRooms {
  /** Kinds of joined rooms the data never holds (loud), by kind name. */
  readonly kinds: readonly SilentRoomKind[];
  /** Joined rooms with no frame whose kind the data does hold (quiet tokens: expected). */
  readonly quiet: number;
}

/** What the recording says about rooms: patterns (`*` matches one segment) it holds whole or cannot hold. */
export interface RoomCoverage {
  readonly covered?: readonly string[];
  readonly absent?: readonly string[];
}

const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The kind of a room: address-like segments written `*`. */
export function roomKind(room: string): string {
  // only a segment of an address's length is tested; a room with none is its own kind
  const parts = room.split(':');
  let changed = false;
  for (let i = 0; i < parts.length; i++) {
    const s = parts[i]!;
    if (s.length >= 32 && s.length <= 44 && ADDRESS.test(s)) {
      parts[i] = '*';
      changed = true;
    }
  }
  return changed ? parts.join(':') : room;
}

/** True when `room` matches `pattern` segment by segment (`*` matches any one segment). */
export function roomMatches(pattern: string, room: string): boolean {
  const p = pattern.split(':');
  const r = room.split(':');
  return p.length === r.length && p.every((s, i) => s === '*' || s === r[i]);
}

/**
 * Sorts the silent rooms of a run into loud kinds and quiet rooms. `recordedKinds`: the kinds of
 * every room with a frame in the data (see `kindsOf`).
 */
export function classifySilentRooms(silent: readonly string[], recordedKinds: ReadonlySet<string>, coverage: RoomCoverage = {}): SilentRooms {
  const loud = new Map<string, { rooms: string[]; why: 'absent' | 'missing' }>();
  let quiet = 0;
  for (const room of silent) {
    const kind = roomKind(room);
    const absent = coverage.absent?.some((p) => roomMatches(p, room)) ?? false;
    const covered = coverage.covered?.some((p) => roomMatches(p, room)) ?? false;
    if (!absent && (covered || recordedKinds.has(kind))) {
      quiet++;
      continue;
    }
    let k = loud.get(kind);
    if (!k) loud.set(kind, (k = { rooms: [], why: absent ? 'absent' : 'missing' }));
    k.rooms.push(room);
  }
  const kinds = [...loud]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([kind, k]) => ({ kind, rooms: k.rooms.length, examples: k.rooms.slice(0, 3), why: k.why }));
  return { kinds, quiet };
}

/** The kinds of a set of rooms. */
export function kindsOf(rooms: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const r of rooms) out.add(roomKind(r));
  return out;
}

const WHY_TEXT = {
  absent: 'absent from this recording (it says it cannot hold these rooms)',
  missing: 'no frame of this kind in the recording (not joined while recording?)',
} as const;

/** Terminal lines of the notice (empty when nothing is loud). */
export function silentRoomsLines(s: SilentRooms | undefined): string[] {
  if (!s || s.kinds.length === 0) return [];
  const n = s.kinds.reduce((a, k) => a + k.rooms, 0);
  return [
    `SILENT ROOMS: the strategies joined ${n} room${n === 1 ? '' : 's'} of ${s.kinds.length} kind${s.kinds.length === 1 ? '' : 's'} this data never holds; they decided blind there:`,
    ...s.kinds.map((k) => `  ${k.kind} (${k.rooms} room${k.rooms === 1 ? '' : 's'}): ${WHY_TEXT[k.why]}`),
    ...(s.quiet > 0 ? [`  (${s.quiet} other joined room${s.quiet === 1 ? ' was' : 's were'} quiet, of kinds the data holds)`] : []),
  ];
}

const esc = (v: string): string => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const NOTICE_CSS = 'border:2px solid #b45309;background:#fffbeb;padding:8px 12px;margin:12px 0';

/** The notice as an HTML section for report.html (empty string when nothing is loud). */
export function silentRoomsHtml(s: SilentRooms | undefined): string {
  if (!s || s.kinds.length === 0) return '';
  const rows = s.kinds
    .map((k) => `<tr><td>${esc(k.kind)}</td><td>${k.rooms}</td><td>${esc(WHY_TEXT[k.why])}</td><td>${esc(k.examples.join(' '))}</td></tr>`)
    .join('');
  return `<section id="silent-rooms" style="${NOTICE_CSS}"><h2>Silent rooms</h2><p>The strategies joined rooms of kinds this data never holds: they decided without those events, and the result says nothing about them.</p><table><thead><tr><th>kind</th><th>rooms</th><th>why</th><th>examples</th></tr></thead><tbody>${rows}</tbody></table>${s.quiet > 0 ? `<p class="note">${s.quiet} other joined rooms were quiet, of kinds the data holds.</p>` : ''}</section>`;
}

/** Sweep cells with loud silent rooms, as an HTML section for sweep.html (empty when none). */
export function sweepSilentRoomsHtml(
  cells: readonly { readonly index: number; readonly params: Readonly<Record<string, unknown>>; readonly silentRooms?: SilentRooms }[],
): string {
  const loud = cells.filter((c) => (c.silentRooms?.kinds.length ?? 0) > 0);
  if (loud.length === 0) return '';
  const rows = loud
    .map(
      (c) =>
        `<tr><td>${c.index}</td><td>${esc(JSON.stringify(c.params))}</td><td>${esc(c.silentRooms!.kinds.map((k) => `${k.kind} (${k.rooms}, ${k.why})`).join(', '))}</td></tr>`,
    )
    .join('');
  return `<section id="silent-rooms" style="${NOTICE_CSS}"><h2>Silent rooms</h2><p>${loud.length} of ${cells.length} cells joined rooms of kinds this data never holds: their results say nothing about those events.</p><table><tr><th>cell</th><th>params</th><th>kinds never in the data</th></tr>${rows}</table></section>`;
}

/** Terminal lines naming the sweep cells with loud silent rooms. */
export function sweepSilentRoomsLines(
  cells: readonly { readonly index: number; readonly params: Readonly<Record<string, unknown>>; readonly silentRooms?: SilentRooms }[],
): string[] {
  const loud = cells.filter((c) => (c.silentRooms?.kinds.length ?? 0) > 0);
  if (loud.length === 0) return [];
  return [
    `SILENT ROOMS: ${loud.length} of ${cells.length} cells joined rooms of kinds this data never holds:`,
    ...loud.map((c) => `  cell ${c.index} ${JSON.stringify(c.params)}: ${c.silentRooms!.kinds.map((k) => `${k.kind} (${k.rooms}, ${k.why})`).join(', ')}`),
  ];
}
