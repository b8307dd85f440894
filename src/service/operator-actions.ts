/**
 * What an operator can do to a deployment, in one place for every channel (the control API, the
 * CLI through it, the dashboard through it, chat control): pause, resume, kill, unkill, and the
 * manual actions on positions and intents. Each answers a value: done (with the state or the
 * intent) or refused with a status and a coded reason; nothing here throws for a refusal.
 */
import type { ManualAction, ManualMeta } from '../runtime/handle/deployment-handle.js';
import type { SlotView } from './service-port.js';

export type SwitchVerb = 'pause' | 'resume' | 'kill' | 'unkill';

export type ActionOutcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly status: number; readonly code: string; readonly message: string };

const notRunning = (slot: SlotView, what: string): ActionOutcome<never> => ({
  ok: false,
  status: 409,
  code: 'RUNTIME_API_NOT_RUNNING',
  message: `deployment "${slot.name}" is ${slot.state}; it can be ${what} once it runs`,
});

const PAST: Record<SwitchVerb, string> = { pause: 'paused', resume: 'resumed', kill: 'killed', unkill: 'unkilled' };

/** Pause, resume, kill or unkill `slot` with `reason`. */
export async function switchDeployment(slot: SlotView, verb: SwitchVerb, reason: string | undefined): Promise<ActionOutcome<SwitchVerb>> {
  const h = slot.handle;
  if (!h) return notRunning(slot, PAST[verb]);
  const why = reason ?? `${PAST[verb]} through the control API`;
  if (verb === 'pause') h.pause(why);
  else if (verb === 'resume') h.resume();
  else if (verb === 'kill') await h.kill(why);
  else await h.unkill();
  return { ok: true, value: verb };
}

/** Closes a position, forces an entry or cancels an intent of `slot`, journaled with `meta`. */
export function manualOnDeployment(
  slot: SlotView,
  action: ManualAction,
  meta: ManualMeta,
): ActionOutcome<{ readonly intentId: string; readonly waitsForPrice?: true }> {
  const h = slot.handle;
  if (!h?.manual) return notRunning(slot, 'acted on');
  const r = h.manual(action, meta);
  if (r.ok) return { ok: true, value: { intentId: r.intentId, ...('waitsForPrice' in r ? { waitsForPrice: r.waitsForPrice } : {}) } };
  return { ok: false, status: 409, code: r.code, message: r.reason };
}
