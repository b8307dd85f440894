/**
 * The daemon-wide notification file (`chainpilot daemon --notify FILE`): YAML with one `notify:`
 * block, the same schema as a deployment's. `${ENV}` is substituted only in the secret fields
 * (`webhook.url`, `webhook.secret`, `telegram.botToken`), which must come from the environment.
 */
import { readFileSync, statSync } from 'node:fs';
import { parse } from 'yaml';
import { loadDeployment, notifySchema, SECRET_PATHS, type NotifyConfig } from '../../config/index.js';
import { ChainpilotError, type Redactor } from '../../core/index.js';

/** The `notify.<channel>.<field>` secret paths of the deployment schema (one list: config/schema.ts). */
const SECRET_FIELDS: readonly (readonly [string, string])[] = SECRET_PATHS.filter((p) => p.length === 3 && p[0] === 'notify').map(
  (p) => [p[1]!, p[2]!] as const,
);

/** Reads and validates the file; returns the block and the secret values (for the redactor). */
export function loadNotifyFile(file: string, env: Readonly<Record<string, string | undefined>>): { config: NotifyConfig; secrets: string[] } {
  const bad = (msg: string): ChainpilotError => new ChainpilotError('CONFIG_INVALID', `${file}: ${msg}`, { retry: 'not_retryable' });
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw bad(`cannot read it as YAML: ${(e as Error).message}`);
  }
  const block = (doc as { notify?: unknown } | null)?.notify;
  if (!block || typeof block !== 'object') throw bad('expected a top-level notify: block (see docs/notifications.md)');
  const raw = structuredClone(block) as Record<string, Record<string, unknown> | undefined>;
  const secrets: string[] = [];
  for (const [channel, field] of SECRET_FIELDS) {
    const holder = raw[channel];
    const v = holder?.[field];
    if (holder === undefined || v === undefined) continue;
    if (typeof v !== 'string' || !/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(v.trim()))
      throw bad(`notify.${channel}.${field}: write \${ENV_NAME} and export the value; secrets are never written in the file`);
    const name = v.trim().slice(2, -1);
    const value = env[name];
    if (!value) throw bad(`notify.${channel}.${field}: environment variable ${name} is not set; export ${name}=... before starting`);
    holder[field] = value;
    secrets.push(value);
  }
  const r = notifySchema.safeParse(raw);
  if (!r.success) throw bad(r.error.issues.map((i) => `notify.${i.path.join('.')}: ${i.message}`).join('; '));
  return { config: r.data, secrets };
}

const cache = new Map<string, { mtimeMs: number; config: NotifyConfig | undefined }>();

/**
 * The `notify:` block of a deployment file, read again when the file changes (a reload); the same
 * object while it does not. Its secrets are registered with `redactor`. An unreadable file has none
 * (the daemon reports the file's errors itself).
 */
export function deploymentNotifyConfig(
  file: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  redactor: Redactor,
): NotifyConfig | undefined {
  if (!file) return undefined;
  let mtimeMs: number;
  try {
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return cache.get(file)?.config;
  }
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.config;
  let config: NotifyConfig | undefined;
  try {
    const loaded = loadDeployment(file, { env });
    for (const s of loaded.secrets) redactor.add(s);
    config = loaded.deployment.notify;
  } catch {
    config = hit?.config;
  }
  cache.set(file, { mtimeMs, config });
  return config;
}
