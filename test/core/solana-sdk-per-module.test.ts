import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('Solana SDKs', () => {
  it('are never mixed in one module: a file imports @solana/web3.js or @solana/kit, not both (base58 comes from core/base58.ts)', () => {
    const root = new URL('../../src/', import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const imports = (text: string, pkg: string): boolean => new RegExp(`from '${pkg}(/[^']*)?'`).test(text);
    const both = files.filter((f) => {
      const text = readFileSync(new URL(f, root), 'utf8');
      return imports(text, '@solana/web3\\.js') && imports(text, '@solana/kit');
    });
    expect(files.length).toBeGreaterThan(100);
    expect(both).toEqual([]);
  });
});
