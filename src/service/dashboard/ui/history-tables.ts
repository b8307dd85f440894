/** A deployment's recent fills and decisions as table rows, newest first, from the store. */
import { h } from './dom.js';
import { shortMint, sol, time } from './format.js';
import { store } from './store.js';

const MAX_ROWS = 50;

type Row = { key: string; cells: (string | HTMLElement)[]; cls?: string };

/** The newest {@link MAX_ROWS} decisions of `name` whose kind is one of `kinds`; fills get the fills table's columns. */
export function decisionRows(name: string, kinds: readonly string[]): Row[] {
  const rows: Row[] = [];
  const seqs = [...store.decisions.keys()].sort((a, b) => b - a);
  for (const seq of seqs) {
    const m = store.decisions.get(seq);
    if (!m || m.deployment !== name || !kinds.includes(m.entry.kind)) continue;
    const e = m.entry;
    const key = `${store.boot}:${seq}`;
    if (e.kind === 'fill')
      rows.push({ key, cells: [time(e.at), e.strategyId, e.side ?? '', shortMint(e.mint ?? ''), `${sol(e.solAmount)} SOL`, e.tokenAmount ?? ''] });
    else {
      if (e.kind === 'manual') {
        rows.push({
          key,
          cls: 'kind-manual',
          cells: [time(e.at), `manual ${e.action ?? ''}`, e.by ?? '', '', shortMint(e.target?.mint ?? e.target?.intentId ?? ''), '', '', e.why ?? ''],
        });
        continue;
      }
      const what =
        e.kind === 'denied'
          ? h('span', { class: 'code' }, e.code ?? '')
          : e.kind === 'unfilled'
            ? h('span', { class: 'code' }, `${e.outcome ?? ''} ${e.code ?? ''}`)
            : '';
      rows.push({
        key,
        cls: `kind-${e.kind}`,
        cells: [
          time(e.at),
          e.kind,
          e.strategyId,
          e.side ?? '',
          e.mint ? shortMint(e.mint) : '',
          e.amountIn ? (e.side === 'sell' ? `${e.amountIn} raw` : `${sol(e.amountIn)} SOL`) : '',
          what,
          e.reason ?? '',
        ],
      });
    }
    if (rows.length >= MAX_ROWS) break;
  }
  return rows;
}
