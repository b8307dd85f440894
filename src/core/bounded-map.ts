/**
 * A Map that holds at most `max` entries: adding a key past the bound drops the oldest added one
 * (insertion order; updating a key keeps its place). The one bounded cache of the project for
 * memo tables and id indexes, where the order of use does not matter. Where recency or ownership
 * matters (the engine's market view), see that module.
 */
import { ChainpilotError } from './errors.js';

export class BoundedMap<K, V> extends Map<K, V> {
  /** Entries dropped to stay within the bound. */
  evicted = 0;

  constructor(readonly max: number) {
    super();
    if (!Number.isSafeInteger(max) || max < 1)
      throw new ChainpilotError('CORE_INVALID_ARGUMENT', `a bounded map needs a positive integer bound, got ${max}`, { retry: 'not_retryable' });
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) {
      const oldest = this.keys().next();
      if (oldest.done !== true) {
        this.delete(oldest.value);
        this.evicted += 1;
      }
    }
    return super.set(key, value);
  }
}
