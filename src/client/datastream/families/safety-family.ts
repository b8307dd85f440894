/**
 * Safety rooms: `sniper`, `bundlers`, `insider`, `dev_holding`, `holders`, `top10`, each `{role}:{token}`.
 * Each room's figure is its own role's field: a message on `insider:{t}` that also carries
 * `totalSniperPercentage` is read for `totalInsiderPercentage` only.
 */
import { fpInt, fpStr } from '../fingerprint.js';
import { isNum, isObj, optNumOrNull, optStr, type Obj } from '../guards.js';
import type { SafetyPayload, SafetyRole } from '../payloads.js';
import { roomFamily } from '../room-family.js';

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

type Read = (d: Obj) => unknown;
/** Per role, readers of its figure and previous-value fields, in order: named property loads, not a lookup by a key from a list. */
const READERS: Readonly<Record<SafetyRole, { readonly figure: readonly Read[]; readonly previous: readonly Read[] }>> = {
  sniper: { figure: [(d) => d.totalSniperPercentage], previous: [(d) => d.previousTotalSniperPercentage, (d) => d.previousTotalPercentage] },
  insider: { figure: [(d) => d.totalInsiderPercentage], previous: [(d) => d.previousTotalInsiderPercentage, (d) => d.previousTotalPercentage] },
  bundlers: { figure: [(d) => d.totalBundlerPercentage], previous: [(d) => d.previousTotalBundlerPercentage, (d) => d.previousTotalPercentage] },
  dev_holding: { figure: [(d) => d.percentage], previous: [(d) => d.previousPercentage] },
  holders: { figure: [(d) => d.total], previous: [(d) => d.previous, (d) => d.previousTotal] },
  top10: { figure: [(d) => d.totalPercentage, (d) => d.top10Percentage], previous: [(d) => d.previousPercentage, (d) => d.previous] },
};

export const safetyFamily = roomFamily({
  name: 'safety',
  pattern: '{sniper|bundlers|insider|dev_holding|holders|top10}:{token}',
  example: 'insider:MintA',
  match: (p) => p.length === 2 && ROLES.has(p[0]!),
  delivery: 'queued',
  rows: false,
  provisional: false,
  parse: (d, r): SafetyPayload | string => {
    if (!isObj(d)) return 'data must be an object';
    const role = r.parts[0] as SafetyRole;
    const f = SAFETY_FIELDS[role];
    const read = READERS[role];
    let figure: number | undefined;
    for (let i = 0; i < read.figure.length; i++) {
      const v = read.figure[i]!(d);
      if (v === undefined) continue;
      if (!isNum(v)) return `${f.figure[i]!} must be a number`;
      figure = v;
      break;
    }
    if (figure === undefined) return `${f.figure.join(' or ')} must be a number (the ${role} room's figure)`;
    let previousFigure: number | undefined;
    for (let i = 0; i < read.previous.length; i++) {
      const v = read.previous[i]!(d);
      if (!optNumOrNull(v)) return `${f.previous[i]!} must be a number or null`;
      if (typeof v === 'number') {
        previousFigure = v;
        break;
      }
    }
    if (!optStr(d.wallet)) return 'wallet must be a string';
    return { role, figure, previousFigure, raw: d };
  },
  identity: (s) => {
    // the same figure reported again for the same wallet at the same time is the same update
    fpInt(Math.round(s.figure * 1e6));
    fpInt(Math.round((s.previousFigure ?? -1) * 1e6));
    fpStr(typeof s.raw.wallet === 'string' ? s.raw.wallet : '');
    fpInt(typeof s.raw.timestamp === 'number' ? s.raw.timestamp : 0);
  },
  scope: (r) => r.parts.join(':'),
});
