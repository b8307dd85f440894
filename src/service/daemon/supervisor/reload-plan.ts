/**
 * What a reload does, decided before anything is stopped or started: from the running slots and
 * the deployment files as read now, which deployments are added, removed, changed (drained and
 * started again: a new file, or a failed deployment whose strategy file may have been fixed) or
 * unchanged, and which files are invalid (a running version of the same file keeps running).
 */
import type { DeploymentSpec, ReloadDiff } from '../supervisor.js';
import type { Slot, ValidSpec } from './slot.js';

/** One step on a running slot, in the slots' order. */
export type ReloadStep = { readonly kind: 'remove'; readonly slot: Slot } | { readonly kind: 'restart'; readonly slot: Slot; readonly spec: ValidSpec };

export interface ReloadPlan {
  readonly diff: ReloadDiff;
  readonly steps: readonly ReloadStep[];
  /** New deployments, in the files' order. */
  readonly add: readonly ValidSpec[];
}

export function planReload(running: readonly Slot[], specs: readonly DeploymentSpec[]): ReloadPlan {
  const invalid: { file: string; code: string; message: string; kept?: string }[] = [];
  const wanted = new Map<string, ValidSpec>();
  const invalidFiles = new Set<string>();
  for (const spec of specs) {
    if ('error' in spec) {
      const kept = running.find((s) => s.file === spec.file);
      invalid.push({ file: spec.file, ...spec.error, ...(kept ? { kept: kept.name } : {}) });
      invalidFiles.add(spec.file);
      continue;
    }
    const name = spec.loaded.deployment.name;
    const other = wanted.get(name);
    if (other) {
      invalid.push({
        file: spec.file,
        code: 'RUNTIME_DAEMON_DUPLICATE_NAME',
        message: `deployment name "${name}" is used by ${other.file} and ${spec.file}; give each deployment its own name`,
      });
      continue;
    }
    wanted.set(name, spec);
  }
  const removed: string[] = [];
  const changed: string[] = [];
  const unchanged: string[] = [];
  const steps: ReloadStep[] = [];
  for (const s of running) {
    const next = wanted.get(s.name);
    if (next === undefined && invalidFiles.has(s.file)) unchanged.push(s.name);
    else if (next === undefined) {
      removed.push(s.name);
      steps.push({ kind: 'remove', slot: s });
    } else if (next.hash !== s.hash || next.file !== s.file || s.state === 'failed') {
      changed.push(s.name);
      steps.push({ kind: 'restart', slot: s, spec: next });
    } else unchanged.push(s.name);
  }
  const names = new Set(running.map((s) => s.name));
  const add = [...wanted.values()].filter((spec) => !names.has(spec.loaded.deployment.name));
  const added = add.map((spec) => spec.loaded.deployment.name);
  return { diff: { added: added.sort(), removed: removed.sort(), changed: changed.sort(), unchanged: unchanged.sort(), invalid }, steps, add };
}
