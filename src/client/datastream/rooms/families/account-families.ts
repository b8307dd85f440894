/** Wallet PnL and DCA rooms (open objects: the spec shows few of their fields). */
import { fpAnchor, fpInt, fpLocal, fpStr } from '../../dedup/fingerprint.js';
import { isObj, optNum, optStr } from '../guards.js';
import { roomFamily, wholeRoom } from '../room-family.js';

/** `pnl:{wallet}:{token}`, `pnl:{wallet}` (queued) and `pnl:{wallet}:summary` (coalesced: the latest totals). */
export const pnlFamily = roomFamily({
  name: 'pnl',
  pattern: 'pnl:{wallet}[:{token}|:summary]',
  example: 'pnl:WalletA:MintA',
  match: (p) => p[0] === 'pnl' && (p.length === 2 || p.length === 3),
  heads: ['pnl'],
  delivery: 'queued',
  rows: false,
  provisional: false,
  parse: (d) => {
    if (!isObj(d)) return 'data must be an object';
    if (!optStr(d.type)) return 'type must be a string';
    if (!optStr(d.tx)) return 'tx must be a string';
    if (!optStr(d.token)) return 'token must be a string';
    return d;
  },
  identity: (d) => {
    fpStr(d.type ?? '');
    fpAnchor(d.tx ?? '');
    fpLocal(d.token ?? '');
    fpInt(typeof d.timestamp === 'number' ? d.timestamp : 0);
  },
  // `pnl:{w}:{t}` and `pnl:{w}` carry the same trade updates
  scope: (r) => (r.parts[2] === 'summary' ? r.parts.join(':') : `pnl:${r.parts[1] ?? ''}`),
});

/** `pnl:{wallet}:summary` is coalesced; the registry looks it up before `pnl`. */
export const pnlSummaryFamily = roomFamily({
  ...pnlFamily,
  pattern: 'pnl:{wallet}:summary',
  example: 'pnl:WalletA:summary',
  match: (p) => p[0] === 'pnl' && p.length === 3 && p[2] === 'summary',
  heads: ['pnl'],
  delivery: 'coalesced',
  identity: undefined,
});

/** `dca:{program}[...]`: every event reaches the global room, its type room and each scoped room. */
export const dcaFamily = roomFamily({
  name: 'dca',
  pattern: 'dca:{program}[:{event}|:{mint}:buyers|:{mint}:sellers|:wallet:{wallet}|:{dcaAddress}]',
  example: 'dca:dca_program_a:MintA:buyers',
  match: (p) => p[0] === 'dca' && p.length >= 2 && p.length <= 4,
  heads: ['dca'],
  delivery: 'queued',
  rows: false,
  provisional: false,
  parse: (d) => {
    if (!isObj(d)) return 'data must be an object';
    if (!optStr(d.eventName)) return 'eventName must be a string';
    if (!optStr(d.signature)) return 'signature must be a string';
    if (d.order !== undefined && !isObj(d.order)) return 'order must be an object';
    if (!optNum(d.writeVersion)) return 'writeVersion must be a number';
    return d;
  },
  identity: (d) => {
    fpStr(d.eventName ?? '');
    fpAnchor(d.signature ?? (typeof d.tx === 'string' ? d.tx : ''));
    const address = d.order?.address;
    fpLocal(typeof address === 'string' ? address : '');
    fpInt(d.writeVersion ?? 0);
  },
  scope: (r) => `dca:${r.parts[1] ?? ''}`,
});

/** Any other room: an open object, delivered as sent (the engine maps no domain event from it). */
export const unknownFamily = roomFamily({
  name: 'unknown',
  pattern: '(any other room)',
  example: 'somethingnew:x',
  match: () => true,
  delivery: 'queued',
  rows: false,
  provisional: false,
  parse: (d) => (isObj(d) ? d : 'data must be an object'),
  scope: wholeRoom,
});
