import { describe, expect, it } from 'vitest';
import { isChainpilotError } from '../../src/core/index.js';
import { parseRecordLine } from '../../src/research/replay/recording-format.js';

const refusedWith = (line: string): string => {
  try {
    parseRecordLine(line);
  } catch (e) {
    if (isChainpilotError(e, 'RECORDING_INVALID')) return e.message;
    throw e;
  }
  throw new Error(`accepted ${line}`);
};

describe('control lines of a recording', () => {
  it('reads an entries mark and a kill mark as written', () => {
    const entries = { kind: 'entries', buy: { code: 'RUNTIME_ENTRIES_PAUSED', reason: 'entries are paused: x' }, sell: null };
    expect(parseRecordLine(JSON.stringify({ k: 'ctl', t: 5, c: entries }))).toEqual({ kind: 'control', t: 5, mark: entries });
    expect(parseRecordLine('{"k":"ctl","t":6,"c":{"kind":"kill","on":false,"reason":null}}')).toEqual({
      kind: 'control',
      t: 6,
      mark: { kind: 'kill', on: false, reason: null },
    });
  });

  it('refuses a mark that does not say what changed, naming what is wrong', () => {
    expect(refusedWith('{"k":"ctl","t":1}')).toMatch(/without its mark/);
    expect(refusedWith('{"k":"ctl","t":1,"c":{"kind":"pause"}}')).toMatch(/unknown kind "pause"/);
    expect(refusedWith('{"k":"ctl","t":1,"c":{"kind":"entries","buy":{"code":"X"},"sell":null}}')).toMatch(/buy refusal lacks its code or reason/);
    expect(refusedWith('{"k":"ctl","t":1,"c":{"kind":"entries","buy":null,"sell":7}}')).toMatch(/sell refusal that is not an object/);
    expect(refusedWith('{"k":"ctl","t":1,"c":{"kind":"kill","reason":null}}')).toMatch(/lacks "on"/);
  });
});
