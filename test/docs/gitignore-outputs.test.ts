/**
 * The output folders and files of the commands in README.md and docs/ (and of the CLI's defaults)
 * are ignored by git, so that following the docs in a checkout leaves `git status` clean.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const docs = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Every `--out X` in the docs' shell blocks that names a concrete path (not a placeholder such as DIR or FILE). */
function outputsOfDocs(): string[] {
  const found = new Set<string>();
  for (const file of docs) {
    const text = readFileSync(new URL(file, root), 'utf8');
    for (const block of text.matchAll(/```(?:sh|bash|console)\n([\s\S]*?)```/g)) {
      for (const m of (block[1] ?? '').matchAll(/--out\s+(\S+)/g)) {
        const path = (m[1] ?? '').replace(/^\.\//, '');
        if (!/^[A-Z_]+$/.test(path) && !path.startsWith('$') && !path.startsWith('/')) found.add(path);
      }
    }
  }
  return [...found].sort();
}

/** Whether git ignores `path` by the repository's .gitignore. */
const ignored = (path: string): boolean => {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: root });
    return true;
  } catch {
    return false;
  }
};

describe('.gitignore', () => {
  it("holds the output of every command in README.md and docs/, and the CLI's default output folders", () => {
    const outputs = outputsOfDocs();
    expect(outputs).toEqual(expect.arrayContaining(['backtest-out', 'recordings', 'downloads', 'sweep-out']));
    // A folder is checked by a file inside it (a pattern like `sweep-*/` matches folders only).
    const notIgnored = outputs.filter((p) => !ignored(p) && !ignored(`${p}/report.html`));
    expect(notIgnored).toEqual([]);
    for (const dflt of ['backtest-out', 'sweep-out', 'recordings', '.chainpilot']) expect(ignored(`${dflt}/x`), dflt).toBe(true);
  });
});
