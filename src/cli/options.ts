/** Option parsers shared by the commands: each names what it expects when a value is wrong. */
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../core/duration.js';

/** `--duration 60s | 5m | 1h` in milliseconds. */
export function durationOption(v: string): number {
  const ms = parseDuration(v);
  if (ms === undefined || ms <= 0) throw new InvalidArgumentError('expected a duration such as 60s, 5m or 1h');
  return ms;
}

/** `--speed N | max`: a positive multiple of real time, or as fast as possible. */
export function speedOption(v: string): number | 'max' {
  if (v === 'max') return 'max';
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive multiple of real time, or "max"');
  return n;
}

/** `--seed N`: a non-negative integer. */
export function seedOption(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}
