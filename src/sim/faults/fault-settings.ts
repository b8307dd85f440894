/**
 * Seeded fault injection: knobs and named profiles. Every probability is drawn from the simulator's
 * fault random source, so the same seed and traffic give the same faults.
 */
import { z } from 'zod';
import { ChainpilotError } from '../../core/index.js';

const p = z.number().min(0).max(1);

export const faultSettingsSchema = z
  .object({
    rest: z
      .object({
        /** Share of REST requests answered 429 with Retry-After. */
        rateLimitShare: p.default(0),
        /** Seconds in Retry-After. */
        retryAfterSeconds: z.number().int().min(0).max(3600).default(1),
        /** Share of REST requests answered 500 SERVER_ERROR (or 503). */
        serverErrorShare: p.default(0),
      })
      .strict()
      .default({ rateLimitShare: 0, retryAfterSeconds: 1, serverErrorShare: 0 }),
    stream: z
      .object({
        /** Chance per connected socket per simulated second that the server drops it. */
        dropSocketPerSecond: p.default(0),
        /** Chance per socket per simulated second that it goes silent (no frames, pings unanswered). */
        silenceSocketPerSecond: p.default(0),
        /** Chance per socket per simulated second of one malformed (truncated JSON) frame. */
        malformedFramePerSecond: p.default(0),
        /** Share of Datastream connections refused with 401 even with the right key. */
        refuseKeyShare: p.default(0),
      })
      .strict()
      .default({ dropSocketPerSecond: 0, silenceSocketPerSecond: 0, malformedFramePerSecond: 0, refuseKeyShare: 0 }),
    /** Share of live liquidity events that vanish on a fork: streamed, never in REST history. */
    liquidityForkShare: p.default(0),
  })
  .strict();

export type FaultSettings = z.input<typeof faultSettingsSchema>;
export type ResolvedFaults = z.output<typeof faultSettingsSchema>;
export type StreamFaults = ResolvedFaults['stream'];

/** Named profiles for `--faults`. */
export const FAULT_PROFILES: Readonly<Record<string, FaultSettings>> = {
  none: {},
  /** Occasional trouble, what a well-behaved client must survive without losing anything. */
  flaky: {
    rest: { rateLimitShare: 0.05, retryAfterSeconds: 1, serverErrorShare: 0.02 },
    stream: { dropSocketPerSecond: 0.002, silenceSocketPerSecond: 0.001, malformedFramePerSecond: 0.005, refuseKeyShare: 0.05 },
    liquidityForkShare: 0.05,
  },
  /** Heavy trouble for resilience tests. */
  chaos: {
    rest: { rateLimitShare: 0.2, retryAfterSeconds: 1, serverErrorShare: 0.1 },
    stream: { dropSocketPerSecond: 0.02, silenceSocketPerSecond: 0.01, malformedFramePerSecond: 0.05, refuseKeyShare: 0.3 },
    liquidityForkShare: 0.25,
  },
};

/** Resolves a profile name or settings object into validated, frozen settings. */
export function resolveFaults(input: string | FaultSettings | undefined): ResolvedFaults {
  let raw: FaultSettings | undefined;
  if (typeof input === 'string') {
    raw = Object.hasOwn(FAULT_PROFILES, input) ? FAULT_PROFILES[input] : undefined;
    if (!raw) {
      throw new ChainpilotError('SIM_UNKNOWN_FAULT_PROFILE', `faults: unknown profile "${input}"; use one of ${Object.keys(FAULT_PROFILES).join(', ')}`, {
        retry: 'not_retryable',
        context: { profile: input },
      });
    }
  } else raw = input ?? {};
  const r = faultSettingsSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = `faults.${issue?.path.join('.') ?? ''}`;
    throw new ChainpilotError('SIM_INVALID_SETTINGS', `${field}: ${issue?.message ?? 'invalid'}; fix or remove it`, {
      retry: 'not_retryable',
      context: { field },
    });
  }
  return Object.freeze(r.data);
}
