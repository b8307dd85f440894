/**
 * Option parsers shared by the commands. Each refuses what it cannot take as meant (an empty
 * value, hex, a number out of range) and names what it expects, with the allowed range from
 * CLI_LIMITS; commander prints the refusal as `CLI_BAD_OPTION: ...` (see main.ts).
 */
import { InvalidArgumentError } from 'commander';
import { CLI_LIMITS, describeRange, type NumericLimit } from '../config/limits.js';
import { parseDuration } from '../core/duration.js';

const got = (v: string): string => `got ${JSON.stringify(v)}`;
const inRange = (n: number, l: NumericLimit): boolean => n >= l.min && n <= l.max;

/** `--duration 60s | 5m | 1h | 30d` in milliseconds, from 1s to 365d. */
export function durationOption(v: string): number {
  const l = CLI_LIMITS['--duration'];
  const ms = parseDuration(v);
  if (ms === undefined || !inRange(ms, l)) throw new InvalidArgumentError(`expected ${describeRange(l)}, such as 60s, 5m or 1h; ${got(v)}`);
  return ms;
}

/** `--join-latency 200ms | 0ms`: run-clock milliseconds from 0 to 1m. */
export function joinLatencyOption(v: string): number {
  const l = CLI_LIMITS['--join-latency'];
  const ms = parseDuration(v);
  if (ms === undefined || !inRange(ms, l)) throw new InvalidArgumentError(`expected ${describeRange(l)}, such as 0ms or 200ms; ${got(v)}`);
  return ms;
}

/** `--speed N | max`: a decimal multiple of real time from 0.01 to 1000, or as fast as possible. */
export function speedOption(v: string): number | 'max' {
  if (v === 'max') return 'max';
  const l = CLI_LIMITS['--speed'];
  // decimal digits only: "0x10", "1e3", "Infinity" and "" are not what a person means by a speed
  const n = /^\d+(\.\d+)?$/.test(v) ? Number(v) : Number.NaN;
  if (!inRange(n, l)) throw new InvalidArgumentError(`expected ${describeRange(l)}; ${got(v)}`);
  return n;
}

/** `--seed N`: a non-negative integer written in decimal digits. */
export function seedOption(v: string): number {
  const l = CLI_LIMITS['--seed'];
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!inRange(n, l)) throw new InvalidArgumentError(`expected ${describeRange(l)}; ${got(v)}`);
  return n;
}

/** `--seed N | WORD` of the simulator: digits are a number, any other non-empty word is hashed. */
export function simSeedOption(v: string): number | string {
  if (/^\d+$/.test(v)) return seedOption(v);
  if (v.trim() === '' || v !== v.trim()) throw new InvalidArgumentError(`expected a non-negative integer or a word without spaces around it; ${got(v)}`);
  return v;
}

/** Log levels a logger takes, quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevelOption = (typeof LOG_LEVELS)[number];

/** `--log-level trace | debug | info | warn | error | silent`. */
export function logLevelOption(v: string): LogLevelOption {
  const level = LOG_LEVELS.find((l) => l === v);
  if (level === undefined) throw new InvalidArgumentError(`expected one of ${LOG_LEVELS.join(', ')}; ${got(v)}`);
  return level;
}

/** `--port N`: 0 to 65535 in decimal digits (0 picks a free port). */
export function portOption(v: string): number {
  const l = CLI_LIMITS['--port'];
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!inRange(n, l)) throw new InvalidArgumentError(`expected a port, ${describeRange(l)} (0 picks a free port); ${got(v)}`);
  return n;
}

/**
 * `--set PATH=VALUE` (repeatable): collected as written; the command parses each with
 * config/overrides.ts when it runs (kept out of this file so that `--help` loads no config code).
 */
export function setOption(v: string, prev: readonly string[] = []): string[] {
  if (!/^\s*[^=\s][^=]*=\s*\S/.test(v))
    throw new InvalidArgumentError(`expected PATH=VALUE such as risk.maxOpenPositions=2 or 'strategies[dip-buyer].params.dropPct=30'; ${got(v)}`);
  return [...prev, v];
}

/** Help text of `--set` on a command that takes one value per path. */
export const SET_HELP =
  "a value in place of the deployment file's, e.g. risk.maxOpenPositions=2 or 'strategies[dip-buyer].params.dropPct=30' (strategies by id, own id, use or [N]; repeatable)";
