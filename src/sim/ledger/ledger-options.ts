/**
 * Validation of the ledger's knobs and fault rates, once, at start: a bad value fails with
 * LEDGER_INVALID_OPTIONS naming the field instead of misbehaving later.
 */
import { z } from 'zod';
import { ChainpilotError } from '../../core/index.js';
import type { FaultRates } from './faults.js';
import type { LandingSettings } from '../sim-settings.js';

const rate = z.number().min(0).max(1).optional();
const positiveInt = z.number().int().positive().optional();

const Knobs = z.strictObject({
  slotMs: positiveInt,
  validBlocks: positiveInt,
  confirmAfterSlots: z.number().int().min(0).optional(),
  finalizeAfterSlots: positiveInt,
  statusCacheSlots: positiveInt,
  // checked by parseLandingSettings (SIM_INVALID_SETTINGS naming the field)
  landing: z.record(z.string(), z.unknown()).optional(),
  faults: z
    .strictObject({
      dropRate: rate,
      delayRate: rate,
      delaySlots: positiveInt,
      lateRate: rate,
      failRate: rate,
      finalizeAtOnceRate: rate,
      rpcErrorRate: rate,
      rpcTimeoutRate: rate,
      maliciousSwapRate: rate,
    })
    .optional(),
});

export interface LedgerKnobs {
  readonly slotMs?: number;
  readonly validBlocks?: number;
  readonly confirmAfterSlots?: number;
  readonly finalizeAfterSlots?: number;
  readonly statusCacheSlots?: number;
  readonly landing?: Partial<LandingSettings>;
  readonly faults?: FaultRates;
}

/** Checks the knobs; throws LEDGER_INVALID_OPTIONS naming the first bad field. */
export function validateLedgerKnobs(knobs: LedgerKnobs): void {
  const r = Knobs.safeParse(knobs);
  if (r.success) {
    if ((knobs.confirmAfterSlots ?? 1) > (knobs.finalizeAfterSlots ?? 32)) {
      throw new ChainpilotError('LEDGER_INVALID_OPTIONS', 'confirmAfterSlots must not exceed finalizeAfterSlots', {
        retry: 'not_retryable',
        context: { field: 'confirmAfterSlots' },
      });
    }
    return;
  }
  const issue = r.error.issues[0];
  const field = issue?.path.join('.') || (issue?.code === 'unrecognized_keys' ? issue.keys.join(',') : 'options');
  throw new ChainpilotError('LEDGER_INVALID_OPTIONS', `${field}: ${issue?.message ?? 'invalid'}; rates are 0 to 1, slot counts and slotMs positive integers`, {
    retry: 'not_retryable',
    context: { field },
  });
}
