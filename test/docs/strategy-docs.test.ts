/**
 * docs/strategies.md is tested: its complete example is the shipped file, runs in paper mode on the
 * embedded simulator and fills; every event field has TSDoc, and the guide's field tables are the
 * ones that TSDoc renders.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/index.js';
import { runPaper } from '../../src/runtime/shell/run-paper.js';
import { END, readEventDocs, renderEventFields, START } from './event-fields.js';

const GUIDE = readFileSync(new URL('../../docs/strategies.md', import.meta.url), 'utf8');
const API = fileURLToPath(new URL('../../src/strategies/api.js', import.meta.url));
const PUBLIC_IMPORT = "from 'chainpilot/strategy';";

/** The ts block under "## A complete example". */
function example(): string {
  const from = GUIDE.indexOf('## A complete example');
  const m = /```ts\n([\s\S]*?)```/.exec(GUIDE.slice(from));
  if (!m) throw new Error('docs/strategies.md: no ts block under "## A complete example"');
  return m[1]!;
}

/** The ts block under "## Market aggregates" (the volume breakout), and the shipped example it copies. */
function aggregatesExample(): { readonly block: string; readonly file: string } {
  const from = GUIDE.indexOf('## Market aggregates');
  const m = /<!-- checked: (test\/docs\/examples\/[\w.-]+\.ts) -->\n```ts\n([\s\S]*?)```/.exec(GUIDE.slice(from));
  if (!m) throw new Error('docs/strategies.md: no checked ts block under "## Market aggregates"');
  return { block: m[2]!, file: m[1]! };
}

describe('docs/strategies.md', () => {
  it('shows the shipped example file, importing the public chainpilot/strategy entry', () => {
    const code = example();
    expect(code).toContain(PUBLIC_IMPORT);
    const file = readFileSync(new URL('../../config/strategies/dip-buyer.ts', import.meta.url), 'utf8');
    const body = file.slice(file.indexOf('import { defineStrategy')).replace("from '../../src/strategies/api.js';", PUBLIC_IMPORT);
    expect(code).toBe(body);
  });

  it('documents every field of every event type in TSDoc, and lists them as the TSDoc says', () => {
    const events = readEventDocs();
    const undocumented = events.flatMap((e) => [...(e.doc ? [] : [e.name]), ...e.fields.filter((f) => f.doc === '').map((f) => `${e.name}.${f.name}`)]);
    expect(undocumented).toEqual([]);
    const section = GUIDE.slice(GUIDE.indexOf(START) + START.length, GUIDE.indexOf(END)).trim();
    // on a mismatch, paste the output of renderEventFields(readEventDocs()) between the markers
    expect(section).toBe(renderEventFields(events));
  });

  it('runs the example, as written in the guide, in paper mode on the simulator, and it fills', async () => {
    const dir = mkdtempSync('/tmp/cp-guide-');
    // `chainpilot/strategy` is the package's subpath export; from a checkout it is src/strategies/api.ts
    writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n'); // an ES module, as in a project that installs chainpilot
    writeFileSync(join(dir, 'guide-strategy.ts'), example().replace(PUBLIC_IMPORT, `from ${JSON.stringify(API)};`));
    writeFileSync(
      join(dir, 'guide.yaml'),
      [
        'version: 1',
        'name: guide-example',
        'endpoints:',
        '  simulator: { seed: 3, speed: 60 }',
        'strategies:',
        '  - use: ./guide-strategy.ts',
        '    params: { buySol: "0.05", dipBps: 500, minHolders: 3 }',
        'risk:',
        '  maxTradeSol: "0.2"',
        '  maxOpenPositions: 5',
        '  maxExposureSol: "1"',
        '  dailyLossLimitSol: "1"',
        'telemetry:',
        '  logLevel: silent',
        '',
      ].join('\n'),
    );
    const summary = await runPaper({ file: join(dir, 'guide.yaml'), durationMs: 6_000, speed: 'max', seed: 3, out: () => undefined, log: silentLogger() });
    expect(summary.intents).toBeGreaterThan(0);
    expect(summary.fills).toBeGreaterThan(0);
  }, 60_000);

  it('runs the market-aggregates example (flow, bars, account, track), as shipped in the guide, in paper mode, and it buys', async () => {
    const { block, file } = aggregatesExample();
    const path = fileURLToPath(new URL(`../../${file}`, import.meta.url));
    const region = readFileSync(path, 'utf8').split('// #region doc\n')[1]!.split('\n// #endregion doc')[0]!;
    expect(`${region.replace("'../../../src/strategies/api.js'", "'chainpilot/strategy'")}\n`).toBe(block);
    const dir = mkdtempSync('/tmp/cp-guide-kit-');
    writeFileSync(
      join(dir, 'guide.yaml'),
      [
        'version: 1',
        'name: guide-aggregates',
        'endpoints:',
        '  simulator: { seed: 3, speed: 60 }',
        'strategies:',
        `  - use: ${path}`,
        '    params: { buySol: "0.05", minVolumeSol: "0.5", minBuyers: 2 }',
        'risk:',
        '  maxTradeSol: "0.2"',
        '  maxOpenPositions: 3',
        '  maxExposureSol: "1"',
        'telemetry:',
        '  logLevel: silent',
        '',
      ].join('\n'),
    );
    const summary = await runPaper({ file: join(dir, 'guide.yaml'), durationMs: 6_000, speed: 'max', seed: 3, out: () => undefined, log: silentLogger() });
    expect(summary.intents).toBeGreaterThan(0);
    // it checks ctx.account() before buying: never denied for want of room
    expect(summary.denials).toBe(0);
  }, 60_000);
});
