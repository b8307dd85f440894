/**
 * The live rails in paper and backtests: the same admission module the live executor and the
 * wallet worker use (../admission.ts), with the day's committed spend kept in memory the way the
 * journal keeps it (every admitted intent's spend counts against its UTC day, whatever its outcome;
 * a refused one spends nothing). A resumed paper run starts from the spend its book recorded
 * (`spentBefore`), as a resumed live run reads its journal. A refusal carries the live code and
 * reason word for word.
 */
import type { UnixMs } from '../../core/index.js';
import type { OrderIntent } from '../../engine/orders/execution-port.js';
import { admitIntent, dayCapDenial, type AdmissionDenial, type AdmissionLimits } from '../admission.js';

export interface PaperRails {
  /** Admits `intent` at `at` (its spend then counts), or returns the live denial. */
  admit(intent: OrderIntent, at: UnixMs): AdmissionDenial | undefined;
  /** Spend committed on a UTC day (`YYYY-MM-DD`), lamports. */
  spentOn(day: string): bigint;
}

export function createPaperRails(limits: AdmissionLimits, spentBefore?: ReadonlyMap<string, bigint>): PaperRails {
  const spent = new Map<string, bigint>(spentBefore);
  return {
    admit(intent, at) {
      const a = admitIntent(intent, limits, at);
      if (!a.ok) return a;
      const before = spent.get(a.day) ?? 0n;
      // The journal checks the daily cap when it writes the row; so does this, in the same words.
      if (before + a.spendLamports > limits.maxDayLamports) return dayCapDenial(a.day, before, a.spendLamports, limits.maxDayLamports);
      spent.set(a.day, before + a.spendLamports);
      return undefined;
    },
    spentOn: (day) => spent.get(day) ?? 0n,
  };
}
