/**
 * A bench's server in a child process, so its work is not on the measured event loop:
 * `node --import tsx <script> ...args` with stderr inherited. The script prints one JSON line
 * describing itself (its port or URLs) once it serves, and exits when its stdin closes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ChildServer<T> {
  /** What the child printed on its first line. */
  readonly info: T;
  readonly pid: number;
  /** Closes the child's stdin and waits for it to exit. */
  stop(): Promise<void>;
}

/** The first line `child` prints on stdout; rejects naming `what` when it exits before. */
export function firstLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (b: Buffer) => {
      text += b.toString();
      const nl = text.indexOf('\n');
      if (nl >= 0) resolve(text.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

/** Starts `script` (a file under bench/support) with `args` and waits for its first line. */
export async function startChildServer<T>(script: string, args: readonly string[], what: string): Promise<ChildServer<T>> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`./${script}`, import.meta.url)), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const info = JSON.parse(await firstLine(child, what)) as T;
  return {
    info,
    pid: child.pid ?? 0,
    stop: async () => {
      child.stdin?.end();
      await exited;
    },
  };
}
