/** What a synchronous call throws, for tests of coded errors. */

/** The error `fn` throws (undefined when it returns). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** The error `fn` throws, read as a coded error; fails when `fn` returns. */
export function errorOf(fn: () => unknown): { code: string; message: string; name: string } {
  try {
    fn();
  } catch (e) {
    return e as { code: string; message: string; name: string };
  }
  throw new Error('expected an error');
}
