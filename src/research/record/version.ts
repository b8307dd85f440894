/** The running chainpilot's version, read once from package.json. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function chainpilotVersion(): string {
  if (cached === undefined) {
    const path = fileURLToPath(new URL('../../../package.json', import.meta.url));
    cached = (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
  }
  return cached;
}
