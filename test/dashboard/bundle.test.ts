import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('the committed dashboard bundle', () => {
  it('matches a fresh build of its sources (run npm run build:dashboard after changing the page)', async () => {
    // @ts-expect-error -- a plain .mjs build script without types
    const { options } = (await import('../../scripts/build-dashboard.mjs')) as { options: Parameters<typeof build>[0] };
    const out = mkdtempSync(join(tmpdir(), 'cp-bundle-'));
    try {
      await build({ ...options, outdir: out });
      for (const f of ['app.js', 'app.css']) {
        expect(readFileSync(join(out, f), 'utf8'), `assets/dashboard/${f} is stale: run npm run build:dashboard`).toBe(
          readFileSync(join('assets', 'dashboard', f), 'utf8'),
        );
      }
      // Offline: the page loads nothing from another origin.
      const html = readFileSync('assets/dashboard/index.html', 'utf8');
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect(readFileSync('assets/dashboard/app.js', 'utf8')).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
