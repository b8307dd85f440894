/**
 * The deployment handle's sub-state: which started state holds (running, paused, killed, halted)
 * is derived from the conditions in force (a fatal error, a halt, a feed or operator pause, the kill
 * switch), never stored apart; the lifecycle (core/lifecycle.ts) owns start and stop. Every state
 * the handle announces moves along the one table (deployment-states.ts), and what the run admits
 * follows the same conditions (the admission check, the recorder's control marks).
 */
import type { ChainpilotError, ErrorCode, Logger, UnixMs } from '../../core/index.js';
import type { Deployment } from '../../config/index.js';
import type { AdmissionRefusal, ControlMark } from '../../engine/logs/control-mark.js';
import type { DeploymentState } from './deployment-handle.js';
import { deploymentStateMachine, LIVE_STATES, runningState } from './deployment-states.js';
import type { FeedLoss } from './feed-watch.js';
import { bump, type Fanout, type HandleCounters, type HandleEvents } from './handle-events.js';
import { STOPPING_DENIAL } from './stopping-denial.js';

/** A coded cause of a state (`health().cause`). */
export interface Cause {
  readonly code: string;
  readonly message: string;
}

export interface RunConditionsOptions {
  readonly name: string;
  readonly onLoss: Deployment['feed']['onLoss'];
  readonly log: Logger;
  readonly events: Pick<HandleEvents, 'emit' | 'alert'>;
  readonly counters: HandleCounters;
  readonly now: () => UnixMs;
  /** The kill switch's reason while it is on (the engine's risk day), else undefined. */
  readonly killReason: () => string | undefined;
  /** The listeners of what the run admits (the recorder). */
  readonly controls: Fanout<ControlMark>;
}

export interface RunConditions {
  /** The state last announced. */
  readonly state: DeploymentState;
  /** The cause announced with it. */
  readonly cause: Cause | undefined;
  /** The first fatal error, if any (it also halts). */
  readonly fatal: Cause | undefined;
  /** Entries paused because the feed is lost (readiness follows it). */
  readonly feedPause: Cause | undefined;
  /** Conditions that leave the run trading but degraded (readiness follows them), by code. */
  readonly degradations: readonly Cause[];
  /**
   * Sets (with a message) or clears (undefined) a degradation of `code`: an error alert when it
   * begins, an info alert when it ends (one of each per episode; a changed message alerts nothing).
   */
  degrade(code: string, message: string | undefined): void;
  /** Moves to `next` along the table and announces it with its cause. */
  enter(next: DeploymentState, why?: Cause, at?: UnixMs): void;
  /** Announces the started state the conditions decide (halted > killed > paused > running) when it or its cause changed. */
  settle(): void;
  /** The admission of a new intent: refused while stopping, halted, or (buys) paused. */
  admission(side: 'buy' | 'sell'): { code: ErrorCode; reason: string } | undefined;
  /** A fatal error: the run halts (no new intents) until a restart. */
  onFatal(e: ChainpilotError): void;
  /** Applies `feed.onLoss` to the feed's loss condition now. */
  applyFeedPolicy(loss: FeedLoss | undefined): void;
  pause(reason: string): void;
  resume(): void;
}

const sameCause = (x: Cause | undefined, y: Cause | undefined): boolean => x?.code === y?.code && x?.message === y?.message;

export function createRunConditions(o: RunConditionsOptions): RunConditions {
  const machine = deploymentStateMachine(o.name);
  let fatal: Cause | undefined;
  let halted: Cause | undefined;
  let feedPause: Cause | undefined;
  let operatorPause: Cause | undefined;
  /** The loss last alerted under `feed.onLoss: continue` (one alert per episode). */
  let lossNoted: string | undefined;
  /** The cause last announced with a state event (a changed cause in the same state is announced too). */
  let cause: Cause | undefined;
  const degraded = new Map<string, string>();
  /** The admission and kill switch last told to the control listeners (JSON of each, `null` before the first). */
  const told: { entries: string | null; kill: string | null } = { entries: null, kill: null };

  const announce = (state: DeploymentState, why: Cause | undefined, at: UnixMs = o.now()): void => {
    cause = why;
    o.events.emit({ type: 'state', at, state, ...(why ? { cause: why } : {}) });
  };
  /** The admission by the conditions in force (the stop aside): what a recording's control marks carry. */
  const conditionsAdmit = (side: 'buy' | 'sell'): AdmissionRefusal | undefined => {
    if (halted) return { code: 'RUNTIME_HALTED', reason: `the deployment is halted (${halted.code}: ${halted.message}); restart after fixing the cause` };
    const why = operatorPause ?? feedPause;
    if (side === 'buy' && why) return { code: 'RUNTIME_ENTRIES_PAUSED', reason: `entries are paused: ${why.message}` };
    return undefined;
  };
  /** Tells the control listeners (the recorder) what changed in the run's admission and kill switch since they were last told. */
  const tellControl = (killReason: string | undefined): void => {
    if (o.controls.size() === 0) return;
    const entries: ControlMark = { kind: 'entries', buy: conditionsAdmit('buy') ?? null, sell: conditionsAdmit('sell') ?? null };
    const kill: ControlMark = { kind: 'kill', on: killReason !== undefined, reason: killReason ?? null };
    const e = JSON.stringify(entries);
    // the first look tells only what is not the default (admits both sides, kill switch off)
    if (e !== (told.entries ?? JSON.stringify({ kind: 'entries', buy: null, sell: null }))) o.controls.call(entries);
    told.entries = e;
    const k = JSON.stringify(kill);
    if (k !== (told.kill ?? JSON.stringify({ kind: 'kill', on: false, reason: null }))) o.controls.call(kill);
    told.kill = k;
  };

  const c: RunConditions = {
    get state() {
      return machine.state;
    },
    get cause() {
      return cause;
    },
    get fatal() {
      return fatal;
    },
    get feedPause() {
      return feedPause;
    },
    get degradations() {
      return [...degraded].map(([code, message]) => ({ code, message }));
    },
    degrade(code, message) {
      const was = degraded.has(code);
      if (message === undefined) {
        if (!was) return;
        degraded.delete(code);
        o.events.alert('info', code, `recovered from ${code}; the deployment is no longer degraded`);
        return;
      }
      degraded.set(code, message);
      if (!was) o.events.alert('error', code, `degraded: ${message}`);
    },
    enter(next, why, at) {
      machine.to(next);
      announce(next, why, at);
    },
    settle() {
      if (!LIVE_STATES.has(machine.state)) return;
      const killReason = o.killReason();
      tellControl(killReason);
      const pause = operatorPause ?? feedPause;
      const next = runningState({ halted: halted !== undefined, killed: killReason !== undefined, paused: pause !== undefined });
      const nextCause: Cause | undefined =
        next === 'halted'
          ? halted
          : next === 'killed'
            ? { code: 'RISK_KILL_SWITCH', message: `kill switch on: ${killReason ?? ''}` }
            : next === 'paused'
              ? pause
              : undefined;
      if (next === machine.state && sameCause(nextCause, cause)) return;
      if (next !== machine.state) machine.to(next);
      announce(next, nextCause);
    },
    admission(side) {
      if (machine.state === 'stopping' || machine.state === 'stopped') return STOPPING_DENIAL;
      return conditionsAdmit(side);
    },
    onFatal(e) {
      bump(o.counters, 'fatal');
      if (fatal) return;
      fatal = { code: e.code, message: e.message };
      halted = fatal;
      o.log.error({ code: e.code, err: e.message }, 'fatal error: the deployment halts (no new intents)');
      o.events.alert('error', e.code, `fatal: ${e.message}; the deployment is halted`);
      c.settle();
    },
    applyFeedPolicy(loss) {
      if (!LIVE_STATES.has(machine.state)) return;
      if (loss && !feedPause && o.onLoss !== 'continue') {
        if (o.onLoss === 'halt') {
          if (!halted) {
            halted = loss;
            o.events.alert('error', loss.code, `${loss.message}; feed.onLoss: halt stops new intents`);
          }
        } else {
          feedPause = loss;
          o.events.alert('warn', loss.code, `${loss.message}; new buys are paused until the feed is healthy (exits keep working)`);
        }
      } else if (loss && o.onLoss === 'continue' && lossNoted !== loss.message) {
        lossNoted = loss.message;
        o.events.alert('warn', loss.code, `${loss.message}; feed.onLoss: continue keeps trading`);
      } else if (!loss && feedPause) {
        feedPause = undefined;
        o.events.alert('info', 'RUNTIME_FEED_LOST', 'the feed is healthy again; new buys resume');
      }
      if (!loss) lossNoted = undefined;
      c.settle();
    },
    pause(reason) {
      operatorPause = { code: 'RUNTIME_ENTRIES_PAUSED', message: `paused by the operator: ${reason}` };
      c.settle();
    },
    resume() {
      operatorPause = undefined;
      c.settle();
    },
  };
  return c;
}
