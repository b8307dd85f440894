/**
 * The control API's bearer token: from the environment (`CHAINPILOT_API_TOKEN`, or the variable a
 * daemon config names), else generated at start and written to `<dataDir>/api-token` with mode
 * 0600, where `chainpilot status` finds it. The token itself is never logged or printed.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_TOKEN_ENV = 'CHAINPILOT_API_TOKEN';
export const TOKEN_FILE = 'api-token';

export interface ResolvedToken {
  readonly token: string;
  /** Where it came from: the environment variable's name, or the file it was written to. */
  readonly source: { readonly kind: 'env'; readonly name: string } | { readonly kind: 'file'; readonly path: string };
}

/** The daemon's token: from `env[name]`, or a fresh one written to the data directory. */
export function resolveDaemonToken(o: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly envName: string;
  readonly dataDir: string;
}): ResolvedToken {
  const fromEnv = o.env[o.envName];
  if (fromEnv !== undefined && fromEnv !== '') return { token: fromEnv, source: { kind: 'env', name: o.envName } };
  const token = randomBytes(24).toString('base64url');
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  const path = join(o.dataDir, TOKEN_FILE);
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { token, source: { kind: 'file', path } };
}

/** The token a CLI client sends: the environment first, then the token file of the data directory. */
export function readClientToken(o: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly envName: string;
  readonly dataDir: string;
}): string | undefined {
  const fromEnv = o.env[o.envName];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    return readFileSync(join(o.dataDir, TOKEN_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
