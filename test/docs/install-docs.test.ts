/**
 * docs/deploy.md tells an app what to add to its package.json so that npm runs chainpilot's
 * dependencies' install scripts without `npm warn install-scripts ... not yet covered by
 * allowScripts`: the snippet must name every package of the installed tree that has an install
 * script (package-lock.json's `hasInstallScript`, dev dependencies excluded), and only those.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/deploy.md: allowScripts for an app', () => {
  it("lists exactly the packages with install scripts that an app's install of chainpilot gets", () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { hasInstallScript?: boolean; dev?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.hasInstallScript === true && p.dev !== true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .sort();
    const doc = read('docs/deploy.md');
    const section = /## Installing chainpilot in an app: npm's allowScripts\n([\s\S]*?)\n## /.exec(doc)?.[1] ?? '';
    const json = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? '{}';
    const snippet = JSON.parse(json) as { allowScripts?: Record<string, boolean> };
    expect(withScripts.length).toBeGreaterThan(0);
    expect(Object.keys(snippet.allowScripts ?? {}).sort()).toEqual(withScripts);
    expect(Object.values(snippet.allowScripts ?? {}).every((v) => v)).toBe(true);
  });
});
