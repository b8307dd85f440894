/**
 * A recording's writing thread and the process: a stop that nothing else waits for still writes
 * every line before the process ends, and a recorder nobody closed (a run that failed to start)
 * does not keep the process alive.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'cp-rec-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCRIPT = `
const { createRecorder } = await import(${JSON.stringify(`${repo}src/research/record/recorder.ts`)});
const { createRedactor, manualClock, silentLogger } = await import(${JSON.stringify(`${repo}src/core/index.ts`)});
const open = (name) => createRecorder({ dir: ${JSON.stringify(dir)}, source: name, clock: manualClock(1000), clockKind: 'simulator', rooms: [], endpoints: {}, redactor: createRedactor(), log: silentLogger() });
const closed = open('closed');
const forgotten = open('forgotten');
for (let i = 0; i < 2000; i++) {
  closed.onRawFrame('{"type":"message","room":"r","data":{"i":' + i + '}}', 1000);
  forgotten.onRawFrame('{"type":"message","room":"r","data":{"i":' + i + '}}', 1000);
}
void closed.stop();
`;

describe('recorder and process lifetime', () => {
  it('writes every line of a stop nobody awaits before the process ends, and lets the process end with a recorder never closed', async () => {
    // the child would hang (and this test time out) if the forgotten recorder's thread kept it alive
    const script = join(dir, 'child.mjs');
    writeFileSync(script, SCRIPT);
    await run(process.execPath, ['--import', 'tsx', script], { cwd: repo, timeout: 60_000 });
    const file = readdirSync(dir).find((f) => f.startsWith('closed-') && f.endsWith('.gz'));
    const lines = gunzipSync(readFileSync(join(dir, file!)))
      .toString('utf8')
      .trim()
      .split('\n');
    expect(lines[0]).toContain('"k":"header"');
    expect(lines.filter((l) => l.startsWith('{"t":1000,"f":'))).toHaveLength(2000);
    expect(lines.at(-1)).toBe('{"k":"end","t":1000}');
  }, 90_000);
});
