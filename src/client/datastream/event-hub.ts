/**
 * The client's listeners: `onEvent` handlers get every client event (connection, server errors,
 * malformed frames, overflow, backfills...), `onGap` handlers every closed gap. A listener that
 * throws never breaks the socket loop: its failure is counted with the handler errors (and a gap
 * handler's is reported as a `handler-error` event).
 *
 * State: the two sets of handlers.
 */
import type { DatastreamEvent } from './events.js';
import type { DatastreamStats } from './stats.js';
import type { StreamGap } from './stream-message.js';

export interface EventHub {
  readonly emit: (event: DatastreamEvent) => void;
  /** Reports a closed gap: the `gap` event, then each gap handler. */
  gap(gap: StreamGap): void;
  readonly onEvent: (handler: (event: DatastreamEvent) => void) => () => void;
  readonly onGap: (handler: (gap: StreamGap) => void) => () => void;
}

export function createEventHub(s: DatastreamStats): EventHub {
  const eventHandlers = new Set<(e: DatastreamEvent) => void>();
  const gapHandlers = new Set<(g: StreamGap) => void>();

  const emit = (e: DatastreamEvent): void => {
    for (const h of eventHandlers) {
      try {
        h(e);
      } catch {
        // an event listener's failure must not break the socket loop; counted with handler errors
        s.handlerErrors++;
      }
    }
  };

  return {
    emit,
    gap(gap) {
      emit({ kind: 'gap', gap });
      for (const h of gapHandlers) {
        try {
          h(gap);
        } catch (e) {
          s.handlerErrors++;
          emit({ kind: 'handler-error', room: '(gap)', error: e });
        }
      }
    },
    onEvent(handler) {
      eventHandlers.add(handler);
      return () => void eventHandlers.delete(handler);
    },
    onGap(handler) {
      gapHandlers.add(handler);
      return () => void gapHandlers.delete(handler);
    },
  };
}
