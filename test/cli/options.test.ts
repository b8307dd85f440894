/**
 * The CLI's option parsers and error output: the edge inputs of issue 11 are refused with the
 * allowed range, every refusal prints as `CODE: message`, and `sim` takes its key from the
 * environment. A standing fuzz test feeds the parsers arbitrary strings: each either returns a
 * value in range or refuses with the expectation and the input, never anything else.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, codedCliError } from '../../src/cli/main.js';
import { durationOption, joinLatencyOption, portOption, seedOption, simSeedOption, speedOption } from '../../src/cli/options.js';
import { FUZZ_TIMEOUT_MS, fuzzParams } from '../helpers/fuzz.js';

/** Runs `argv` through the real program with a no-op action; returns what commander wrote to stderr. */
async function refusal(argv: string[]): Promise<string> {
  const program = buildProgram()
    .exitOverride()
    .configureOutput({ writeErr: (s) => (err += s), outputError: (s, write) => write(codedCliError(s)) });
  let err = '';
  for (const c of program.commands) {
    c.exitOverride().configureOutput({ writeErr: (s) => (err += s), outputError: (s, write) => write(codedCliError(s)) });
    c.action(() => undefined);
  }
  await expect(program.parseAsync(['node', 'chainpilot', ...argv])).rejects.toThrow();
  return err;
}

describe('option values that used to be accepted silently', () => {
  it.each([
    [['paper', 'd.yaml', '--seed', ''], `CLI_BAD_OPTION: option '--seed <n>' argument '' is invalid. expected an integer from 0 to 9007199254740991; got ""`],
    [
      ['sim', '--port', ''],
      `CLI_BAD_OPTION: option '--port <port>' argument '' is invalid. expected a port, an integer from 0 to 65535 (0 picks a free port); got ""`,
    ],
    [['sim', '--seed', ''], `CLI_BAD_OPTION: option '--seed <seed>' argument '' is invalid. expected a non-negative integer or a word`],
    [
      ['paper', 'd.yaml', '--speed', '1e-300'],
      `CLI_BAD_OPTION: option '--speed <n>' argument '1e-300' is invalid. expected a multiple of real time from 0.01 to 1000, or "max"; got "1e-300"`,
    ],
    [['paper', 'd.yaml', '--speed', '0x10'], `argument '0x10' is invalid. expected a multiple of real time from 0.01 to 1000, or "max"`],
    [['run', 'd.yaml', '--speed', '1e300'], `argument '1e300' is invalid`],
    [
      ['paper', 'd.yaml', '--duration', '400d'],
      `CLI_BAD_OPTION: option '--duration <time>' argument '400d' is invalid. expected a duration from 1s to 365d, such as 60s, 5m or 1h; got "400d"`,
    ],
    [
      ['backtest', 'd.yaml', '--data', 'rec', '--join-latency', '2m'],
      `CLI_BAD_OPTION: option '--join-latency <time>' argument '2m' is invalid. expected a duration from 0 to 1m, such as 0ms or 200ms; got "2m"`,
    ],
    [['sim', '--api-key', ''], `CLI_BAD_OPTION: option '--api-key <key>' argument '' is invalid. expected a non-empty key`],
    [['paper'], `CLI_USAGE: missing required argument 'file'`],
    [['no-such-command'], `CLI_USAGE: unknown command 'no-such-command'`],
  ])('refuses %j as CODE: message', async (argv, expected) => {
    expect(await refusal(argv)).toContain(expected);
  });

  it('accepts a 30-day duration in milliseconds (the run timer chains past 2^31-1 ms)', () => {
    expect(durationOption('30d')).toBe(30 * 86_400_000);
    expect(speedOption('0.5')).toBe(0.5);
    expect(speedOption('max')).toBe('max');
    expect(simSeedOption('demo')).toBe('demo');
    expect(portOption('0')).toBe(0);
    expect(joinLatencyOption('0ms')).toBe(0);
    expect(joinLatencyOption('250ms')).toBe(250);
  });

  it('prints a coded error of a command as CODE: message from the real binary', async () => {
    const r = await promisify(execFile)(process.execPath, ['bin/chainpilot.js', 'paper', '/nonexistent/d.yaml'], { timeout: 30_000 }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(r).toMatchObject({ code: 1 });
    expect((r as { stderr: string }).stderr).toMatch(/^CONFIG_UNREADABLE: cannot read deployment file \/nonexistent\/d\.yaml/);
  });
});

describe('chainpilot sim --api-key', () => {
  it('takes the key from CHAINPILOT_SIM_API_KEY and says so in --help', async () => {
    const program = buildProgram().exitOverride();
    const sim = program.commands.find((c) => c.name() === 'sim')!;
    let seen: { apiKey?: string } = {};
    sim.action((o: { apiKey?: string }) => void (seen = o));
    process.env['CHAINPILOT_SIM_API_KEY'] = 'env-key-123';
    try {
      await program.parseAsync(['node', 'chainpilot', 'sim']);
    } finally {
      delete process.env['CHAINPILOT_SIM_API_KEY'];
    }
    expect(seen.apiKey).toBe('env-key-123');
    const help = sim.helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('prefer the CHAINPILOT_SIM_API_KEY environment variable, since a key on the command line shows in `ps`');
    expect(help).toContain('(env: CHAINPILOT_SIM_API_KEY)');
  });
});

describe('option parsers under arbitrary input (fuzz)', () => {
  const parsers = { durationOption, joinLatencyOption, speedOption, seedOption, simSeedOption, portOption } as const;
  const input = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom(
      '',
      ' ',
      '0',
      '-1',
      '0x10',
      '1e3',
      '1e-300',
      'Infinity',
      'NaN',
      '00',
      '1.',
      '.5',
      '9007199254740993',
      '65536',
      '24d',
      '25d',
      '1s',
      '0s',
      'max',
      'MAX',
    ),
    fc.double().map(String),
    fc.integer().map((n) => `${n}${['', 'ms', 's', 'm', 'h', 'd'][Math.abs(n) % 6]!}`),
  );

  it(
    'either returns a value in range or refuses with the expectation and the input',
    () => {
      fc.assert(
        fc.property(input, fc.constantFrom(...(Object.keys(parsers) as (keyof typeof parsers)[])), (v, name) => {
          let out: unknown;
          try {
            out = parsers[name](v);
          } catch (e) {
            expect(e, `${name}(${JSON.stringify(v)})`).toBeInstanceOf(InvalidArgumentError);
            expect((e as Error).message).toMatch(/^expected .*got ".*"$/s);
            return;
          }
          if (name === 'simSeedOption' && typeof out === 'string') {
            expect(out.trim()).toBe(out);
            return;
          }
          if (out === 'max') {
            expect([name, v]).toEqual(['speedOption', 'max']);
            return;
          }
          expect(typeof out).toBe('number');
          const n = out as number;
          expect(Number.isFinite(n)).toBe(true);
          const range = {
            durationOption: [1_000, 365 * 86_400_000],
            joinLatencyOption: [0, 60_000],
            speedOption: [0.01, 1_000],
            seedOption: [0, Number.MAX_SAFE_INTEGER],
            simSeedOption: [0, Number.MAX_SAFE_INTEGER],
            portOption: [0, 65_535],
          }[name];
          expect(n).toBeGreaterThanOrEqual(range[0]!);
          expect(n).toBeLessThanOrEqual(range[1]!);
          if (name !== 'durationOption' && name !== 'joinLatencyOption') expect(v).toMatch(/^\d+(\.\d+)?$/); // decimal digits only: no hex, exponent or blank
        }),
        fuzzParams({ numRuns: 2_000, seed: 1201 }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
