/** A tiny element builder: text only goes through textContent (no HTML injection from data). */

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Readonly<Record<string, string>> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

/** A table with a header row and body rows; each row may carry a `data-key`. */
export function table(
  cls: string,
  head: readonly string[],
  rows: readonly { key?: string; cells: readonly Child[]; cls?: string }[],
  empty: string,
): HTMLElement {
  if (rows.length === 0) return h('p', { class: `empty ${cls}` }, empty);
  return h(
    'table',
    { class: cls },
    h('thead', {}, h('tr', {}, ...head.map((x) => h('th', {}, x)))),
    h(
      'tbody',
      {},
      ...rows.map((r) => h('tr', { ...(r.key ? { 'data-key': r.key } : {}), ...(r.cls ? { class: r.cls } : {}) }, ...r.cells.map((c) => h('td', {}, c)))),
    ),
  );
}
