/**
 * Safety rooms: `sniper`, `bundlers`, `insider`, `dev_holding`, `holders`, `top10`, each `{role}:{token}`.
 * Each room's figure is its own role's field: a message on `insider:{t}` that also carries
 * `totalSniperPercentage` is read for `totalInsiderPercentage` only.
 */
import { fpAnchor, fpInt } from '../../dedup/fingerprint.js';
import { isNum, isObj, optNumOrNull, optStr, type Obj } from '../guards.js';
import type { SafetyPayload, SafetyRole } from '../payloads.js';
import { roomFamily, wholeRoom } from '../room-family.js';

/** The figure field of each role, then its previous-value fields (first present wins). */
export const SAFETY_FIELDS: Readonly<Record<SafetyRole, { readonly figure: readonly string[]; readonly previous: readonly string[] }>> = {
  sniper: { figure: ['totalSniperPercentage'], previous: ['previousTotalSniperPercentage', 'previousTotalPercentage'] },
  insider: { figure: ['totalInsiderPercentage'], previous: ['previousTotalInsiderPercentage', 'previousTotalPercentage'] },
  bundlers: { figure: ['totalBundlerPercentage'], previous: ['previousTotalBundlerPercentage', 'previousTotalPercentage'] },
  dev_holding: { figure: ['percentage'], previous: ['previousPercentage'] },
  holders: { figure: ['total'], previous: ['previous', 'previousTotal'] },
  top10: { figure: ['totalPercentage', 'top10Percentage'], previous: ['previousPercentage', 'previous'] },
};

const ROLES = new Set<string>(Object.keys(SAFETY_FIELDS));

// The candidate fields of the message being parsed, in SAFETY_FIELDS order: figure fields f0, f1,
// previous-value fields p0, p1 (undefined where a role has fewer). Module scratch written by
// `load`, so a message costs one switch and named property loads: no array, no closure call, no
// lookup by a key from a list (in a tight loop, 20 ns a message instead of 70 to 100 with readers
// kept per role).
let f0: unknown;
let f1: unknown;
let p0: unknown;
let p1: unknown;

function load(role: SafetyRole, d: Obj): void {
  switch (role) {
    case 'sniper':
      f0 = d.totalSniperPercentage;
      f1 = undefined;
      p0 = d.previousTotalSniperPercentage;
      p1 = d.previousTotalPercentage;
      return;
    case 'insider':
      f0 = d.totalInsiderPercentage;
      f1 = undefined;
      p0 = d.previousTotalInsiderPercentage;
      p1 = d.previousTotalPercentage;
      return;
    case 'bundlers':
      f0 = d.totalBundlerPercentage;
      f1 = undefined;
      p0 = d.previousTotalBundlerPercentage;
      p1 = d.previousTotalPercentage;
      return;
    case 'dev_holding':
      f0 = d.percentage;
      f1 = undefined;
      p0 = d.previousPercentage;
      p1 = undefined;
      return;
    case 'holders':
      f0 = d.total;
      f1 = undefined;
      p0 = d.previous;
      p1 = d.previousTotal;
      return;
    case 'top10':
      f0 = d.totalPercentage;
      f1 = d.top10Percentage;
      p0 = d.previousPercentage;
      p1 = d.previous;
      return;
  }
}

export const safetyFamily = roomFamily({
  name: 'safety',
  pattern: '{sniper|bundlers|insider|dev_holding|holders|top10}:{token}',
  example: 'insider:MintA',
  match: (p) => p.length === 2 && ROLES.has(p[0]!),
  heads: [...ROLES],
  delivery: 'queued',
  rows: false,
  provisional: false,
  parse: (d, r): SafetyPayload | string => {
    if (!isObj(d)) return 'data must be an object';
    const role = r.parts[0] as SafetyRole;
    load(role, d);
    // the first figure field present is the figure; the first previous-value field that is a number is the previous figure
    let figure: number;
    if (f0 !== undefined) {
      if (!isNum(f0)) return `${SAFETY_FIELDS[role].figure[0]!} must be a number`;
      figure = f0;
    } else if (f1 !== undefined) {
      if (!isNum(f1)) return `${SAFETY_FIELDS[role].figure[1]!} must be a number`;
      figure = f1;
    } else return `${SAFETY_FIELDS[role].figure.join(' or ')} must be a number (the ${role} room's figure)`;
    let previousFigure: number | undefined;
    if (!optNumOrNull(p0)) return `${SAFETY_FIELDS[role].previous[0]!} must be a number or null`;
    if (typeof p0 === 'number') previousFigure = p0;
    else {
      if (!optNumOrNull(p1)) return `${SAFETY_FIELDS[role].previous[1]!} must be a number or null`;
      if (typeof p1 === 'number') previousFigure = p1;
    }
    if (!optStr(d.wallet)) return 'wallet must be a string';
    return { role, figure, previousFigure, raw: d };
  },
  identity: (s) => {
    // the same figure reported again for the same wallet at the same time is the same update
    fpInt(Math.round(s.figure * 1e6));
    fpInt(Math.round((s.previousFigure ?? -1) * 1e6));
    fpAnchor(typeof s.raw.wallet === 'string' ? s.raw.wallet : '');
    fpInt(typeof s.raw.timestamp === 'number' ? s.raw.timestamp : 0);
  },
  scope: wholeRoom,
});
