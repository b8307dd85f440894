/**
 * The deployment lifecycle table (src/runtime/deployment-states.ts), checked exhaustively: every
 * pair of states is allowed exactly when the table lists it, the machine refuses the rest with a
 * coded invariant error and stays where it was, and the handle's own state events follow the table.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import type { DeploymentState } from '../../src/runtime/handle/deployment-handle.js';
import { canTransition, DEPLOYMENT_TRANSITIONS, deploymentStateMachine, LIVE_STATES, runningState } from '../../src/runtime/handle/deployment-states.js';
import { paperSimYaml, tempDir, type TempDir } from './helpers.js';

const STATES = Object.keys(DEPLOYMENT_TRANSITIONS) as DeploymentState[];

/** A machine driven from `created` to `target` along allowed edges (breadth-first), or undefined if unreachable. */
function pathTo(target: DeploymentState): DeploymentState[] | undefined {
  const prev = new Map<DeploymentState, DeploymentState | null>([['created', null]]);
  const queue: DeploymentState[] = ['created'];
  while (queue.length > 0) {
    const s = queue.shift()!;
    if (s === target) {
      const out: DeploymentState[] = [];
      for (let at: DeploymentState | null | undefined = s; at; at = prev.get(at)) out.unshift(at);
      return out;
    }
    for (const n of DEPLOYMENT_TRANSITIONS[s]) {
      if (prev.has(n)) continue;
      prev.set(n, s);
      queue.push(n);
    }
  }
  return undefined;
}

let tmp: TempDir | undefined;
afterEach(() => {
  tmp?.remove();
  tmp = undefined;
});

describe('the deployment state machine', () => {
  it('reaches every state from created, and only stopped and failed are final', () => {
    for (const s of STATES) expect(pathTo(s), s).toBeDefined();
    expect(STATES.filter((s) => DEPLOYMENT_TRANSITIONS[s].length === 0).sort()).toEqual(['failed', 'stopped']);
  });

  it('allows exactly the transitions of the table, for every pair of states, and a refused one leaves the state as it was', () => {
    let checked = 0;
    for (const from of STATES) {
      const path = pathTo(from)!;
      for (const to of STATES) {
        const m = deploymentStateMachine('t');
        for (const s of path.slice(1)) m.to(s);
        expect(m.state).toBe(from);
        if (DEPLOYMENT_TRANSITIONS[from].includes(to)) {
          expect(canTransition(from, to)).toBe(true);
          m.to(to);
          expect(m.state).toBe(to);
        } else {
          expect(canTransition(from, to)).toBe(false);
          expect(() => m.to(to)).toThrow(expect.objectContaining({ code: 'RUNTIME_INVARIANT_BROKEN', retry: 'fatal' }) as Error);
          expect(m.state).toBe(from);
        }
        checked += 1;
      }
    }
    expect(checked).toBe(STATES.length ** 2);
  });

  it('derives the state of a started handle with halted over killed over paused over running', () => {
    const cases: [boolean, boolean, boolean, DeploymentState][] = [
      [false, false, false, 'running'],
      [false, false, true, 'paused'],
      [false, true, false, 'killed'],
      [false, true, true, 'killed'],
      [true, false, false, 'halted'],
      [true, true, true, 'halted'],
    ];
    for (const [halted, killed, paused, want] of cases) {
      expect(runningState({ halted, killed, paused })).toBe(want);
      expect(LIVE_STATES.has(want)).toBe(true);
    }
  });

  it('moves a real handle only along the table: start, pause, kill, unkill, resume, stop', async () => {
    tmp = tempDir('cp-states-');
    const handle = createDeployment(loadDeployment(tmp.write('paper.yaml', paperSimYaml())), { mode: 'paper', speed: 'max', seed: 3 });
    const seen: DeploymentState[] = ['created'];
    handle.events.on((e) => void (e.type === 'state' && seen.push(e.state)));
    await handle.start();
    handle.pause('operator test');
    expect(handle.health()).toMatchObject({ state: 'paused', cause: { code: 'RUNTIME_ENTRIES_PAUSED' } });
    await handle.kill('test kill');
    expect(handle.health().state).toBe('killed');
    await handle.unkill();
    expect(handle.health().state).toBe('paused');
    handle.resume();
    expect(handle.health()).toMatchObject({ state: 'running', cause: undefined });
    await handle.stop({ drainMs: 1_000 });
    expect(seen).toEqual(['created', 'starting', 'running', 'paused', 'killed', 'paused', 'running', 'stopping', 'stopped']);
    for (let i = 1; i < seen.length; i++) expect(canTransition(seen[i - 1]!, seen[i]!), `${seen[i - 1]} -> ${seen[i]}`).toBe(true);
  });
});
