/**
 * The signed-in session: the API token, kept in sessionStorage for this browser session only, the
 * API calls that carry it, and signing out (the daemon refused it, or the user asked).
 */

const TOKEN_KEY = 'chainpilot.apiToken';
const signOutHooks: (() => void)[] = [];

export const $ = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;
export const token = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const saveToken = (value: string): void => sessionStorage.setItem(TOKEN_KEY, value);

/** Runs `hook` at each sign-out (the stream closes its connection). */
export function onSignOut(hook: () => void): void {
  signOutHooks.push(hook);
}

/** A JSON call with the bearer token; a 401 signs out, another error throws `CODE: message`. */
export async function api(path: string, method = 'GET', body?: unknown): Promise<unknown> {
  const res = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${token() ?? ''}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status === 401) {
    signOut('The daemon refused the token.');
    throw new Error('unauthorised');
  }
  const json = (await res.json()) as unknown;
  const err = (json as { error?: { code?: string; message?: string } }).error;
  if (!res.ok) throw new Error(err ? `${err.code ?? 'ERROR'}: ${err.message ?? ''}` : `HTTP ${res.status}`);
  return json;
}

export function signOut(message: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  for (const hook of signOutHooks) hook();
  $('app').hidden = true;
  $('signin').hidden = false;
  $('signin-error').textContent = message;
}
