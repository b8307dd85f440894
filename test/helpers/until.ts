/** Polls `ok` every 20 ms until it holds: waits for the event that proves a claim, with a deadline naming `what`. */
export async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
