/**
 * `ctx.data` in a backtest, answered from the recording and never from the network. A look-up made
 * at the same run-clock time as a recorded one gets that recorded answer when the replay reaches
 * the line where it arrived (so asynchronous handlers resume where they did in the recorded run).
 * Any other look-up is a miss: counted, and answered by the fallback: `latest` (the newest answer
 * to the same path and query received at or before the clock, never a later one) or `error`
 * (BACKTEST_DATA_MISS).
 */
import { ChainpilotError, type Clock } from '../../core/index.js';
import type { DataPort } from '../../engine/strategy/data-lookup.js';
import { dataKey, type RecordLine } from './recording-format.js';

type DataLine = Extract<RecordLine, { kind: 'data' }>;

export type DataMissFallback = 'latest' | 'error';

export interface ReplayData {
  readonly port: DataPort;
  /** The replay reached a recorded answer: settle the look-up waiting for it, if any. */
  reached(line: DataLine): void;
  stats(): { readonly exact: number; readonly misses: number; readonly fallbackAnswers: number };
}

interface Waiter {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export function createReplayData(lines: readonly RecordLine[], clock: Clock, fallback: DataMissFallback): ReplayData {
  const byKey = new Map<string, DataLine[]>();
  for (const l of lines) {
    if (l.kind !== 'data') continue;
    let list = byKey.get(l.key);
    if (!list) byKey.set(l.key, (list = []));
    list.push(l);
  }
  const used = new Set<DataLine>();
  const waiting = new Map<DataLine, Waiter>();
  let exact = 0;
  let misses = 0;
  let fallbackAnswers = 0;

  const settle = (l: DataLine, w: Waiter): void => {
    if (l.error)
      w.reject(
        new ChainpilotError('BACKTEST_DATA_MISS', `recorded look-up ${l.path} failed: ${l.error.code}: ${l.error.message}`, {
          retry: 'not_retryable',
          context: { path: l.path, recordedCode: l.error.code },
        }),
      );
    else w.resolve(l.body);
  };

  return {
    port: {
      get(path, query) {
        const key = dataKey(path, query);
        const now = clock.now() as number;
        const list = byKey.get(key) ?? [];
        const match = list.find((l) => l.askedAt === now && !used.has(l));
        if (match) {
          used.add(match);
          exact++;
          return new Promise((resolve, reject) => waiting.set(match, { resolve, reject }));
        }
        misses++;
        if (fallback === 'latest') {
          let best: DataLine | undefined;
          for (const l of list) if (l.t <= now && !l.error) best = l;
          if (best) {
            fallbackAnswers++;
            return Promise.resolve(best.body);
          }
        }
        return Promise.reject(
          new ChainpilotError(
            'BACKTEST_DATA_MISS',
            `ctx.data.get("${key}") at ${new Date(now).toISOString()} has no answer in the recording${fallback === 'latest' ? ' at or before that time' : ''}; record with the same strategies, or use --data-miss latest`,
            { retry: 'not_retryable', context: { path } },
          ),
        );
      },
    },
    reached(line) {
      const w = waiting.get(line);
      if (!w) return;
      waiting.delete(line);
      settle(line, w);
    },
    stats: () => ({ exact, misses, fallbackAnswers }),
  };
}
