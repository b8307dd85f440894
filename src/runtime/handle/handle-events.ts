/**
 * What a deployment handle tells its holders: its event listeners, alerts, and the fan-outs the
 * composed parts listen on (the recorder's stop phases, manual decisions and control marks). A
 * listener that throws is logged and counted (`listenerErrors`), never stops the others.
 */
import { describeError, type Logger, type UnixMs } from '../../core/index.js';
import type { DeploymentEvent } from './deployment-handle.js';

/** The handle's counters (listener errors, fatal errors, parts that failed to close), shared by its modules. */
export type HandleCounters = Record<string, number>;

/** Adds one to `counters[key]`. */
export function bump(counters: HandleCounters, key: string): void {
  counters[key] = (counters[key] ?? 0) + 1;
}

/** Listeners of one kind of value the composed parts register. */
export interface Fanout<T> {
  readonly add: (listener: (value: T) => void) => void;
  readonly call: (value: T) => void;
  readonly size: () => number;
}

export interface HandleEvents {
  /** Subscribes a holder; returns the unsubscribe. */
  on(listener: (e: DeploymentEvent) => void): () => void;
  emit(e: DeploymentEvent): void;
  alert(level: 'info' | 'warn' | 'error', code: string, message: string): void;
  /** A fan-out for the composed parts' listeners of `what`. */
  fanout<T>(what: string): Fanout<T>;
}

export function createHandleEvents(o: { readonly log: Logger; readonly counters: HandleCounters; readonly now: () => UnixMs }): HandleEvents {
  const listeners = new Set<(e: DeploymentEvent) => void>();
  const guarded = (run: () => void, what: Readonly<Record<string, string>>, message: string): void => {
    try {
      run();
    } catch (err) {
      bump(o.counters, 'listenerErrors');
      o.log.warn({ err: describeError(err), ...what }, message);
    }
  };
  const emit = (e: DeploymentEvent): void => {
    for (const l of listeners) guarded(() => l(e), { event: e.type }, 'a deployment event listener threw');
  };
  return {
    on(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    emit,
    alert: (level, code, message) => emit({ type: 'alert', at: o.now(), level, code, message }),
    fanout<T>(what: string): Fanout<T> {
      const ls: ((value: T) => void)[] = [];
      return {
        add: (listener) => void ls.push(listener),
        size: () => ls.length,
        call(value) {
          for (const l of ls) guarded(() => l(value), { listener: what }, `a ${what} listener threw`);
        },
      };
    },
  };
}
