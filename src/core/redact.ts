/**
 * Secret redaction. Every secret the process knows (API keys, RPC key, wallet key material,
 * Datastream URLs that embed a key) is registered once; logs, errors and reports pass through
 * `redact` before they leave the process.
 */
export const REDACTED = '[REDACTED]';

export interface Redactor {
  /** Registers a secret value (ignored when shorter than 4 characters to avoid nonsense matches). */
  add(secret: string | undefined): void;
  /** Replaces every registered secret in `text`. */
  redact(text: string): string;
  /** Deep-copies plain data with every string redacted (and every `secretKey`-like field dropped). */
  redactValue<T>(value: T): T;
  /** True when `text` contains a registered secret. */
  leaks(text: string): boolean;
  /** The registered secrets (to hand a redactor to a worker thread: `createRedactor(secrets())` there). */
  secrets(): readonly string[];
}

const SECRET_FIELD = /^(api[-_]?key|x-api-key|secret|secret[-_]?key|private[-_]?key|password|authorization|keypair)$/i;

export function createRedactor(initial: readonly (string | undefined)[] = []): Redactor {
  const secrets = new Set<string>();
  let pattern: RegExp | undefined;
  const rebuild = (): void => {
    const list = [...secrets].sort((a, b) => b.length - a.length).map(escapeRegExp);
    pattern = list.length ? new RegExp(list.join('|'), 'g') : undefined;
  };
  const r: Redactor = {
    add(secret) {
      if (!secret || secret.length < 4 || secrets.has(secret)) return;
      secrets.add(secret);
      // URL-encoded forms travel in query strings and paths too.
      const enc = encodeURIComponent(secret);
      if (enc !== secret) secrets.add(enc);
      rebuild();
    },
    redact(text) {
      return pattern ? text.replace(pattern, REDACTED) : text;
    },
    redactValue<T>(value: T): T {
      return redactDeep(value, r, new WeakSet()) as T;
    },
    secrets: () => [...secrets],
    leaks(text) {
      if (!pattern) return false;
      pattern.lastIndex = 0;
      const hit = pattern.test(text);
      pattern.lastIndex = 0;
      return hit;
    },
  };
  for (const s of initial) r.add(s);
  return r;
}

function redactDeep(value: unknown, r: Redactor, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return r.redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, r, seen));
  if (value instanceof Error) {
    return { name: value.name, message: r.redact(value.message) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_FIELD.test(k) ? REDACTED : redactDeep(v, r, seen);
  }
  return out;
}

/** Replaces the `api_key` query parameter and a key-bearing last path segment of a URL. */
export function redactUrl(url: string, r?: Redactor): string {
  let out = url.replace(/([?&](?:api[-_]?key|key|token)=)[^&#]*/gi, `$1${REDACTED}`);
  if (r) out = r.redact(out);
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
