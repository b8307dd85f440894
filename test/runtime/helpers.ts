/** Shared helpers of the runtime tests: temp deployment files, a log capture, waiting for a condition. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';

export interface TempDir {
  readonly dir: string;
  write(name: string, text: string): string;
  remove(): void;
}

export function tempDir(prefix: string): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    write(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The shipped paper-sim deployment with its decision log and log level replaced. */
export function paperSimYaml(extra = ''): string {
  return (
    readFileSync('config/paper-sim.yaml', 'utf8')
      .replace(/\n {2}decisionLog: .*\n/, '\n')
      .replace('logLevel: warn', 'logLevel: silent') + extra
  );
}

/** A pino logger whose JSON lines are kept in `lines`. */
export function captureLog(level = 'info'): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, log: pino({ level, base: undefined }, { write: (l: string) => void lines.push(l) }) };
}

/** Resolves once `cond()` holds; rejects after `timeoutMs` of wall time with `what`. */
export async function until(cond: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
