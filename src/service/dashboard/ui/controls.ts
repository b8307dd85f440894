/**
 * The operator's controls: the switches (pause, resume, kill, unkill) and the manual actions
 * (close a position or half of it, force a buy, cancel an intent), each confirmed in a dialog
 * first; the answer (done, placed, or the denial with its code) goes to the notice line.
 */
import { h } from './dom.js';
import { shortMint } from './format.js';
import { $, api } from './session.js';
import type { Position } from './types.js';

/** A switch on deployment `name`; kill and pause are confirmed first. */
export async function act(name: string, action: string): Promise<void> {
  if (action === 'kill' || action === 'pause') {
    const ok = await confirmAction(
      action === 'kill'
        ? `Kill ${name}? No new buys until unkilled (persisted: survives restarts). Exits keep working.`
        : `Pause entries of ${name}? Exits keep working.`,
      action === 'kill' ? 'Kill' : 'Pause',
    );
    if (!ok) return;
  }
  try {
    await api(`/api/deployments/${encodeURIComponent(name)}/${action}`, 'POST', { reason: `${action} from the dashboard` });
    $('notice').textContent = `${name}: ${action} done`;
  } catch (e) {
    $('notice').textContent = `${name}: ${action} failed: ${(e as Error).message}`;
  }
}

export function actionButton(label: string, id: string, onClick: () => void): HTMLElement {
  const b = h('button', { type: 'button', class: 'small', 'data-manual': id }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** Sells `fractionBps` of position `p` of deployment `name`. */
export function closeButton(name: string, p: Position, fractionBps: number, label: string): HTMLElement {
  const share = fractionBps === 10_000 ? 'all' : `${fractionBps / 100} %`;
  return actionButton(
    label,
    `close-${fractionBps}-${p.mint}`,
    () =>
      void manual(
        name,
        'positions/close',
        { mint: p.mint, strategyId: p.strategyId, fractionBps },
        `Sell ${share} of ${shortMint(p.mint)} (${p.strategyId}) in ${name}?`,
        label,
      ),
  );
}

/** Cancels a pending intent of deployment `name`. */
export function cancelButton(name: string, p: { id: string; side: string; mint: string }): HTMLElement {
  return actionButton(
    'Cancel',
    `cancel-${p.id}`,
    () => void manual(name, `intents/${encodeURIComponent(p.id)}/cancel`, {}, `Cancel intent ${p.id} (${p.side} ${shortMint(p.mint)})?`, 'Cancel intent'),
  );
}

/** Exact lamports of a decimal SOL text (`0.1` → `100000000`), or undefined when it is not one. */
function lamportsOf(solText: string): string | undefined {
  const m = /^(\d{1,9})(?:\.(\d{1,9}))?$/.exec(solText);
  if (!m) return undefined;
  const v = BigInt(m[1] ?? '0') * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
  return v > 0n ? v.toString() : undefined;
}

/** A forced buy of `solText` SOL of `mint`, through the risk gate. */
export async function forceEntry(name: string, mint: string, solText: string, strategyId: string): Promise<void> {
  const spendLamports = lamportsOf(solText);
  if (!mint || spendLamports === undefined) {
    $('notice').textContent = `${name}: give a mint and a positive SOL amount (up to 9 decimals)`;
    return;
  }
  await manual(
    name,
    'entries',
    { mint, spendLamports, ...(strategyId ? { strategyId } : {}) },
    `Buy ${solText} SOL of ${shortMint(mint)} in ${name}? It goes through the risk gate.`,
    'Buy',
  );
}

/** A manual action, after confirmation; the answer (placed, or the denial with its code) goes to the notice line. */
async function manual(name: string, path: string, body: Record<string, unknown>, question: string, verb: string): Promise<void> {
  if (!(await confirmAction(question, verb))) return;
  try {
    const r = (await api(`/api/deployments/${encodeURIComponent(name)}/${path}`, 'POST', {
      ...body,
      by: 'dashboard',
      reason: `${verb} from the dashboard`,
    })) as {
      intentId: string;
      waitsForPrice?: boolean;
    };
    $('notice').textContent =
      `${name}: ${verb} placed (${r.intentId})${r.waitsForPrice === true ? ': no price of the token yet, waiting for its first price' : ''}`;
  } catch (e) {
    $('notice').textContent = `${name}: ${verb} refused: ${(e as Error).message}`;
  }
}

function confirmAction(text: string, verb: string): Promise<boolean> {
  const dialog = $('confirm') as HTMLDialogElement;
  $('confirm-text').textContent = text;
  $('confirm-yes').textContent = verb;
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true }));
}
