import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/index.js';
import { parseDeployment, type LoadedDeployment } from '../../src/config/index.js';
import { type DeploymentSpec } from '../../src/service/daemon/supervisor.js';
import { fakeSupervisor, type FakeHandle } from './fake-handle.js';

const yaml = (name: string, extra = ''): string => `version: 1\nname: ${name}\nstrategies:\n  - use: graduation-sniper\n${extra}`;
const spec = (name: string, hash = 'h1', extra = ''): DeploymentSpec => ({
  file: `/d/${name}.yaml`,
  hash,
  loaded: parseDeployment(yaml(name, extra), `/d/${name}.yaml`),
});

function setup(o: { failStart?: Record<string, { code: string; message: string }> } = {}) {
  const clock = manualClock(1_000_000);
  const released: string[] = [];
  const { sup, made: handles } = fakeSupervisor(clock, {
    backoff: { initialMs: 1_000, maxMs: 8_000 },
    deps: { acquire: async (l: LoadedDeployment) => ({ deps: {}, release: async () => void released.push(l.deployment.name) }) },
    ...(o.failStart ? { failStart: o.failStart } : {}),
  });
  const of = (name: string): FakeHandle[] => handles.filter((h) => h.name === name);
  return { clock, sup, of, released };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
};

describe('daemon supervisor', () => {
  it('starts every deployment and reports the diff of a first load', async () => {
    const { sup, of } = setup();
    const diff = await sup.apply([spec('a'), spec('b')]);
    expect(diff).toEqual({ added: ['a', 'b'], removed: [], changed: [], unchanged: [], invalid: [] });
    expect(sup.list().map((s) => [s.name, s.state])).toEqual([
      ['a', 'running'],
      ['b', 'running'],
    ]);
    expect(of('a')[0]?.calls).toEqual(['start']);
  });

  it('restarts a deployment that died with capped exponential backoff while the others keep running', async () => {
    const { sup, of, clock } = setup();
    await sup.apply([spec('a'), spec('b')]);
    of('a')[0]!.die({ code: 'ENGINE_STRATEGY_HALTED', message: 'boom' });
    await settle();
    expect(sup.get('a')?.state).toBe('restarting');
    expect(sup.get('a')?.cause?.code).toBe('ENGINE_STRATEGY_HALTED');
    expect(sup.get('b')?.state).toBe('running');
    clock.advance(999);
    await settle();
    expect(of('a')).toHaveLength(1);
    clock.advance(1);
    await settle();
    expect(of('a')).toHaveLength(2);
    expect(sup.get('a')?.state).toBe('running');
    expect(sup.get('a')?.restarts).toBe(1);
    // Dying again at once doubles the delay; the cap holds it at maxMs.
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      of('a').at(-1)!.die({ code: 'ENGINE_STRATEGY_HALTED', message: 'again' });
      await settle();
      const at = sup.get('a')!.restartAt!;
      delays.push(at - clock.now());
      clock.advanceTo(at);
      await settle();
    }
    expect(delays).toEqual([2_000, 4_000, 8_000, 8_000, 8_000]);
    expect(of('b')).toHaveLength(1);
  });

  it('never restarts a live deployment whose store reported corruption', async () => {
    const { sup, of, clock } = setup();
    await sup.apply([spec('live1', 'h', 'mode: live\n')]);
    of('live1')[0]!.die({ code: 'JOURNAL_CORRUPT', message: 'bad row' });
    await settle();
    clock.advance(120_000);
    await settle();
    expect(of('live1')).toHaveLength(1);
    expect(sup.get('live1')?.state).toBe('failed');
    expect(sup.get('live1')?.cause?.code).toBe('JOURNAL_CORRUPT');
  });

  it('marks a deployment that fails to start as failed with its cause and retries it', async () => {
    const { sup, of, clock } = setup({ failStart: { bad: { code: 'RUNTIME_STORE_LOCKED', message: 'held by pid 1' } } });
    await sup.apply([spec('bad'), spec('good')]);
    expect(sup.get('bad')?.state).toBe('restarting');
    expect(sup.get('good')?.state).toBe('running');
    clock.advance(1_000);
    await settle();
    expect(of('bad')).toHaveLength(2);
  });

  it('a reload starts new, drains removed, restarts changed and keeps the running version of an invalid file', async () => {
    const { sup, of, released } = setup();
    await sup.apply([spec('a'), spec('b'), spec('c')]);
    const diff = await sup.apply([
      spec('a'),
      spec('b', 'h2'),
      { file: '/d/c.yaml', hash: 'bad', error: { code: 'CONFIG_INVALID', message: '/d/c.yaml:3:1 risk.maxTradeSol: expected ...' } },
      spec('d'),
    ]);
    expect(diff.added).toEqual(['d']);
    expect(diff.changed).toEqual(['b']);
    expect(diff.unchanged).toEqual(['a', 'c']);
    expect(diff.invalid).toEqual([{ file: '/d/c.yaml', code: 'CONFIG_INVALID', message: '/d/c.yaml:3:1 risk.maxTradeSol: expected ...', kept: 'c' }]);
    expect(of('b').map((h) => h.calls)).toEqual([['start', 'stop'], ['start']]);
    expect(of('c')[0]?.calls).toEqual(['start']);
    const removed = await sup.apply([spec('a'), spec('b', 'h2'), spec('c'), spec('d')].filter((s) => !s.file.includes('/a.')));
    expect(removed.removed).toEqual(['a']);
    expect(of('a')[0]?.calls).toEqual(['start', 'stop']);
    expect(sup.get('a')).toBeUndefined();
    expect(released).toContain('a');
  });

  it('a reload starts a failed deployment again even when its file did not change', async () => {
    const { sup, of } = setup();
    await sup.apply([spec('live1', 'h', 'mode: live\n')]);
    of('live1')[0]!.die({ code: 'CONFIG_INVALID', message: 'strategy file broken' });
    await settle();
    expect(sup.get('live1')?.state).toBe('failed');
    const diff = await sup.apply([spec('live1', 'h', 'mode: live\n')]);
    expect(diff.changed).toEqual(['live1']);
    expect(of('live1')).toHaveLength(2);
    expect(sup.get('live1')?.state).toBe('running');
  });

  it('refuses two files with one deployment name and runs the first', async () => {
    const { sup } = setup();
    const diff = await sup.apply([spec('a'), { ...spec('a'), file: '/d/other.yaml' }]);
    expect(diff.added).toEqual(['a']);
    expect(diff.invalid[0]?.code).toBe('RUNTIME_DAEMON_DUPLICATE_NAME');
  });

  it('stopAll drains every deployment and no restart follows', async () => {
    const { sup, of, clock } = setup();
    await sup.apply([spec('a'), spec('b')]);
    of('a')[0]!.die({ code: 'X_Y', message: 'z' });
    await settle();
    await sup.stop();
    clock.advance(60_000);
    await settle();
    expect(of('a')).toHaveLength(1);
    expect(of('b')[0]?.calls).toEqual(['start', 'stop']);
    expect(sup.list().every((s) => s.state === 'stopped')).toBe(true);
  });

  it("holds a failed deployment's shared dependencies until its restart acquired new ones, so its endpoint stays open in between", async () => {
    const clock = manualClock(1_000_000);
    const order: string[] = [];
    let n = 0;
    const { sup, made: handles } = fakeSupervisor(clock, {
      backoff: { initialMs: 1_000, maxMs: 8_000 },
      deps: {
        acquire: async (l: LoadedDeployment) => {
          const id = `${l.deployment.name}#${++n}`;
          order.push(`acquire ${id}`);
          return { deps: {}, release: async () => void order.push(`release ${id}`) };
        },
      },
    });
    await sup.apply([spec('a')]);
    handles[0]!.die({ code: 'ENGINE_STRATEGY_HALTED', message: 'boom' });
    await settle();
    expect(sup.get('a')?.state).toBe('restarting');
    expect(order).toEqual(['acquire a#1']);
    clock.advance(1_000);
    await settle();
    expect(order).toEqual(['acquire a#1', 'acquire a#2', 'release a#1']);
    // A changed file restarts the same way: the new run acquires before the old one's deps go.
    await sup.apply([spec('a', 'h2')]);
    expect(order.slice(3)).toEqual(['acquire a#3', 'release a#2']);
    // A store of another deployment is a configuration error: not retried, and its deps are released.
    handles.at(-1)!.die({ code: 'RUNTIME_STORE_FOREIGN', message: 'store belongs to deployment b' });
    await settle();
    clock.advance(60_000);
    await settle();
    expect(sup.get('a')?.state).toBe('failed');
    expect(order.slice(5)).toEqual(['release a#3']);
    await sup.stop();
    expect(order).toHaveLength(6);
  });
});
