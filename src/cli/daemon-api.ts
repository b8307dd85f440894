/**
 * A small client of the daemon's control API for the CLI (`chainpilot status`, `kill`, ...), so an
 * operator needs no curl. Errors are coded: CLI_API_UNREACHABLE (nothing answers at the URL), the
 * daemon's own code when it refuses (RISK_TRADE_SIZE, ENGINE_MANUAL_REFUSED, RUNTIME_API_UNAUTHORIZED,
 * ...), so that the printed hint fits the refusal, and CLI_API_REFUSED only for an answer without a
 * code this CLI knows.
 */
import { ChainpilotError } from '../core/index.js';
import { ERROR_CODES, type ErrorCode } from '../core/error-codes.js';
import { DEFAULT_TOKEN_ENV, readClientToken } from '../service/daemon/api-token.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:8790';
export const DEFAULT_DATA_DIR = '.chainpilot';

export interface DaemonApiOptions {
  readonly url?: string;
  readonly tokenEnv?: string;
  readonly dataDir?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface DaemonApi {
  get(path: string): Promise<unknown>;
  post(path: string, body?: unknown): Promise<unknown>;
}

/** Whether the daemon answered a code this CLI knows (so that the hint printed with it fits). */
const isKnownCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);

export function daemonApi(o: DaemonApiOptions = {}): DaemonApi {
  const base = (o.url ?? DEFAULT_API_URL).replace(/\/+$/, '');
  const token = readClientToken({ env: o.env ?? process.env, envName: o.tokenEnv ?? DEFAULT_TOKEN_ENV, dataDir: o.dataDir ?? DEFAULT_DATA_DIR });
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (e) {
      throw new ChainpilotError(
        'CLI_API_UNREACHABLE',
        `no answer from the daemon at ${base} (${e instanceof Error ? e.message : String(e)}); start it with \`chainpilot daemon\` or pass --url`,
        { retry: 'retryable', context: { url: base } },
      );
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    if (!res.ok) {
      const err = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
      const message = typeof err?.message === 'string' ? err.message : typeof parsed === 'string' && parsed !== '' ? parsed.slice(0, 500) : 'refused';
      const hint =
        res.status === 401
          ? `; set ${o.tokenEnv ?? DEFAULT_TOKEN_ENV} to the daemon's token (or run from the directory whose ${o.dataDir ?? DEFAULT_DATA_DIR}/api-token the daemon wrote)`
          : '';
      throw new ChainpilotError(isKnownCode(err?.code) ? err.code : 'CLI_API_REFUSED', `${method} ${path}: HTTP ${res.status}: ${message}${hint}`, {
        retry: 'not_retryable',
        context: { status: res.status },
      });
    }
    return parsed;
  };
  return { get: (p) => call('GET', p), post: (p, b) => call('POST', p, b ?? {}) };
}
