/**
 * Structured logging on pino. Every log line passes through the process redactor, so a secret that
 * was registered can never be written, whatever field it hides in.
 */
import { createRequire } from 'node:module';
import type * as PinoModule from 'pino';
import type { Logger, DestinationStream } from 'pino';
import type { Redactor } from './redact.js';

type Pino = typeof PinoModule;
let pinoModule: Pino | undefined;
/** `require` here, in ESM and in a CommonJS bundle (where import.meta.url is undefined), as the crash tests build. */
const localRequire = (): NodeJS.Require => createRequire(typeof __filename === 'string' ? __filename : import.meta.url);
/** pino loads on the first logger, not when core loads: commands that never log start faster. */
const loadPino = (): Pino => (pinoModule ??= localRequire()('pino') as Pino);

export type { Logger } from 'pino';

export interface LoggerOptions {
  readonly level?: string;
  readonly name?: string;
  readonly redactor: Redactor;
  /** Where lines go (default stdout). Tests pass a stream that captures lines. */
  readonly destination?: DestinationStream;
  /** Pretty, human output (only for a TTY). */
  readonly pretty?: boolean;
}

/** Creates a logger whose every line is redacted before it is written. */
export function createLogger(options: LoggerOptions): Logger {
  const { redactor } = options;
  const { pino, destination, stdSerializers } = loadPino();
  const base = options.destination ?? (options.pretty ? prettyStream() : destination({ sync: false }));
  const redacting: DestinationStream = {
    write(line: string) {
      base.write(redactor.redact(line));
    },
  };
  return pino(
    {
      level: options.level ?? 'info',
      ...(options.name ? { name: options.name } : {}),
      base: undefined,
      serializers: { err: stdSerializers.err },
    },
    redacting,
  );
}

function prettyStream(): DestinationStream {
  // pino-pretty as a synchronous in-process stream: no worker thread to leak at exit.
  const pretty = localRequire()('pino-pretty') as (o: Record<string, unknown>) => DestinationStream;
  return pretty({ colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
}

/** A logger that discards everything (tests, benchmarks). */
export function silentLogger(): Logger {
  return loadPino().pino({ level: 'silent' });
}
