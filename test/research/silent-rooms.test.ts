/**
 * Silent rooms are loud: a backtest or sweep cell whose strategies joined rooms of a kind the
 * recording never holds (here: a curve milestone the recording was not made at) says so on the
 * terminal, in report.html and in sweep.html; a backtest of the recording's own deployment does not.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';
import { classifySilentRooms, roomKind } from '../../src/research/report/silent-rooms.js';
import { silentRoomsOf } from '../../src/research/backtest/silent-rooms-of.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';
import { prepareRecording } from '../../src/research/replay/prepared-cache.js';
import { recordedRoomsOf } from '../../src/research/replay/replay-feed.js';
import { runSweep } from '../../src/research/backtest/run-sweep.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-silent-'));
const file = 'config/paper-sim.yaml';
const at40 = join(dir, 'paper-sim-40.yaml');
const MINT = 'So1anaMint1111111111111111111111111111111112';

beforeAll(async () => {
  await recordSimulator({ seed: 5, durationMs: 10 * 60_000, loaded: loadDeployment(file), dir: join(dir, 'rec'), redactor: createRedactor() });
  writeFileSync(
    at40,
    readFileSync(file, 'utf8')
      .replace('milestonePct: 50', 'milestonePct: 40')
      .replace(/decisionLog: .*/, `decisionLog: ${join(dir, 'd.jsonl')}`),
  );
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, ['bin/chainpilot.js', ...args], { encoding: 'utf8', timeout: 120_000 });

describe('silent rooms', () => {
  it('sorts silent rooms into kinds the data never holds and quiet rooms of kinds it holds', () => {
    expect(roomKind(`holders:${MINT}`)).toBe('holders:*');
    expect(roomKind('venue_a:curve:40')).toBe('venue_a:curve:40');
    const s = classifySilentRooms(['venue_a:curve:40', `holders:${MINT}`, `sniper:${MINT}`], new Set(['venue_a:curve:50', 'holders:*']), {
      absent: ['sniper:*'],
    });
    expect(s).toEqual({
      kinds: [
        { kind: 'sniper:*', rooms: 1, examples: [`sniper:${MINT}`], why: 'absent' },
        { kind: 'venue_a:curve:40', rooms: 1, examples: ['venue_a:curve:40'], why: 'missing' },
      ],
      quiet: 1,
    });
    // a room the recording says it covers whole is quiet even with no frame of its kind
    expect(classifySilentRooms(['venue_a:curve:40'], new Set(), { covered: ['venue_a:curve:*'] })).toEqual({ kinds: [], quiet: 1 });
  });

  it('counts a room the recording was given at its start as quiet, even with no frame of its kind', async () => {
    await recordSimulator({ seed: 5, durationMs: 60_000, rooms: ['venue_a:curve:99', 'latest'], dir: join(dir, 'rooms'), redactor: createRedactor() });
    const recording = prepareRecording(join(dir, 'rooms'));
    expect(recordedRoomsOf(readRecording(join(dir, 'rooms')).lines).has('latest')).toBe(true);
    expect(recordedRoomsOf(recording).has('venue_a:curve:99')).toBe(false);
    expect([...recordedRoomsOf(recording)]).toEqual([...recordedRoomsOf(readRecording(join(dir, 'rooms')).lines)]);
    expect(silentRoomsOf(['venue_a:curve:99', 'venue_a:curve:98'], recording)).toEqual({
      kinds: [{ kind: 'venue_a:curve:98', rooms: 1, examples: ['venue_a:curve:98'], why: 'missing' }],
      quiet: 1,
    });
  });

  it('says on the terminal and in report.html that a backtest at another milestone ran blind, and says nothing for the recorded one', () => {
    const blind = cli('backtest', at40, '--data', join(dir, 'rec'), '--out', join(dir, 'bt40'));
    expect(blind.status).toBe(0);
    expect(blind.stdout).toContain('SILENT ROOMS');
    expect(blind.stdout).toMatch(/venue_a:curve:40 \(1 room\): no frame of this kind in the recording/);
    const html = readFileSync(join(dir, 'bt40', 'report.html'), 'utf8');
    expect(html).toContain('<section id="silent-rooms"');
    expect(html).toContain('venue_a:curve:40');
    const report = JSON.parse(readFileSync(join(dir, 'bt40', 'report.json'), 'utf8')) as { run: { silentRooms: { kinds: { kind: string }[] } } };
    expect(report.run.silentRooms.kinds.map((k) => k.kind)).toEqual(['venue_a:curve:40']);

    const same = cli('backtest', file, '--data', join(dir, 'rec'), '--out', join(dir, 'bt50'));
    expect(same.status).toBe(0);
    expect(same.stdout).not.toContain('SILENT ROOMS');
    expect(readFileSync(join(dir, 'bt50', 'report.html'), 'utf8')).not.toContain('id="silent-rooms"');
  }, 120_000);

  it('names the sweep cells that ran blind on the terminal and in sweep.html', () => {
    const r = cli(
      'sweep',
      file,
      '--data',
      join(dir, 'rec'),
      '--set',
      'strategies[curve-momentum].params.milestonePct=40,50',
      '--workers',
      '0',
      '--out',
      join(dir, 'sw'),
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('SILENT ROOMS: 1 of 2 cells');
    expect(r.stdout).toContain('cell 0 {"strategies[curve-momentum].params.milestonePct":40}: venue_a:curve:40 (1, missing)');
    // cell 1 (milestone 50, the recording's own) ran with every room it joined: no silent-rooms line for it
    expect(r.stdout).not.toMatch(/^ {2}cell 1 \{[^\n]*\}: /m);
    const html = readFileSync(join(dir, 'sw', 'sweep.html'), 'utf8');
    expect(html).toContain('<section id="silent-rooms"');
    expect(html).toContain('1 of 2 cells joined rooms of kinds this data never holds');
  }, 120_000);

  it('warns before running any cell, once per milestone the recording never holds, naming the cells that need it', async () => {
    const events: string[] = [];
    await runSweep({
      file,
      data: [join(dir, 'rec')],
      axes: [
        { path: 'strategies[curve-momentum].params.milestonePct', values: [40, 50] },
        { path: 'strategies[curve-momentum].params.minHolders', values: [5, 10] },
      ],
      workers: 0,
      outDir: join(dir, 'sw-warn'),
      onWarning: (line) => events.push(line),
      onCell: () => events.push('cell'),
    });
    const warnings = events.filter((e) => e !== 'cell');
    // one line for the missing milestone 40 (two cells need it), none for the recorded milestone 50
    expect(warnings).toEqual([
      'warning: 2 of 4 cells join venue_a:curve:40, which this recording never holds (no frame of this kind in the recording): they will decide blind there: ' +
        'cell 0 {"strategies[curve-momentum].params.milestonePct":40,"strategies[curve-momentum].params.minHolders":5}, ' +
        'cell 1 {"strategies[curve-momentum].params.milestonePct":40,"strategies[curve-momentum].params.minHolders":10}',
    ]);
    expect(events.join('\n')).not.toContain('curve:50');
    // said before the first cell ran
    expect(events.indexOf(warnings[0]!)).toBeLessThan(events.indexOf('cell'));
  }, 180_000);
});
