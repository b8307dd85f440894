/**
 * Reads the event interfaces of src/engine/events/events.ts with the TypeScript compiler and renders the
 * "Event fields" section of docs/strategies.md from their TSDoc: one table per event, one row per
 * field with its type and its description (empty when the field has no TSDoc).
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export interface EventField {
  readonly name: string;
  readonly type: string;
  readonly doc: string;
}

export interface EventDoc {
  readonly name: string;
  readonly doc: string;
  readonly fields: readonly EventField[];
}

const FILE = new URL('../../src/engine/events/events.ts', import.meta.url);

function docOf(node: ts.Node, sf: ts.SourceFile): string {
  const ranges = ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? [];
  const last = ranges.filter((r) => sf.text.slice(r.pos, r.pos + 3) === '/**').at(-1);
  if (!last) return '';
  return sf.text
    .slice(last.pos + 3, last.end - 2)
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, '').trim())
    .filter(Boolean)
    .join(' ');
}

/** Every interface of events.ts with its fields. */
export function readEventDocs(): EventDoc[] {
  const sf = ts.createSourceFile('events.ts', readFileSync(FILE, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: EventDoc[] = [];
  sf.forEachChild((n) => {
    if (!ts.isInterfaceDeclaration(n)) return;
    const fields = n.members.filter(ts.isPropertySignature).map((m) => ({
      name: m.name.getText(sf) + (m.questionToken ? '?' : ''),
      type: m.type?.getText(sf).replace(/\s+/g, ' ') ?? 'unknown',
      doc: docOf(m, sf),
    }));
    out.push({ name: n.name.text, doc: docOf(n, sf), fields });
  });
  return out;
}

/** The markdown section (between its markers). */
export function renderEventFields(events: readonly EventDoc[]): string {
  const esc = (t: string): string => t.replace(/\|/g, '\\|');
  const parts = events.map((e) => {
    const rows = e.fields.map((f) => `| \`${f.name}\` | \`${esc(f.type)}\` | ${esc(f.doc)} |`).join('\n');
    return `#### \`${e.name}\`\n\n${e.doc}\n\n| field | type | meaning |\n| - | - | - |\n${rows}`;
  });
  return parts.join('\n\n');
}

export const START = '<!-- event-fields:start: generated from the TSDoc of src/engine/events/events.ts; test/docs/strategy-docs.test.ts checks it -->';
export const END = '<!-- event-fields:end -->';
