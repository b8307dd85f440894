import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { isChainpilotError, manualClock } from '../../src/core/index.js';
import { parseDeployment } from '../../src/config/index.js';
import {
  assertFits,
  createMemoryWatch,
  DAEMON_BASE_BYTES,
  DEPLOYMENT_BYTES,
  estimateMemory,
  parseMemorySize,
  type MemoryReading,
} from '../../src/service/daemon/memory-budget.js';
import type { DeploymentSpec } from '../../src/service/daemon/supervisor.js';

const MIB = 1024 * 1024;

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return isChainpilotError(e) ? e.code : 'not coded';
  }
  return undefined;
};

const spec = (name: string, endpoints: string): DeploymentSpec => ({
  file: `/d/${name}.yaml`,
  hash: 'h',
  loaded: parseDeployment(`version: 1\nname: ${name}\nendpoints:\n${endpoints}\nstrategies:\n  - use: graduation-sniper\n`, `/d/${name}.yaml`),
});

const remote = `  remote:\n    baseUrl: https://api.example.test\n    datastreamUrl: wss://ds.example.test\n    apiKey: k-0123456789abcdef0123456789`;

describe('parseMemorySize', () => {
  it('reads binary sizes with or without a unit, a bare number being MB', () => {
    expect(parseMemorySize('2GB')).toBe(2048 * MIB);
    expect(parseMemorySize('1536MB')).toBe(1536 * MIB);
    expect(parseMemorySize('512m')).toBe(512 * MIB);
    expect(parseMemorySize('1.5GiB')).toBe(1536 * MIB);
    expect(parseMemorySize('300')).toBe(300 * MIB);
  });

  it('refuses what is not a size with RUNTIME_DAEMON_BAD_CONFIG', () => {
    for (const bad of ['lots', '2TB', '0', '-1GB', ''])
      expect(
        codeOf(() => parseMemorySize(bad)),
        bad,
      ).toBe('RUNTIME_DAEMON_BAD_CONFIG');
  });
});

describe('estimateMemory', () => {
  const specs: DeploymentSpec[] = [
    spec('a', '  simulator: { seed: 42, speed: 60 }'),
    spec('b', '  simulator: { seed: 42, speed: 60 }'),
    spec('c', '  simulator: { seed: 43, speed: 60 }'),
    spec('r', remote),
    { file: '/d/broken.yaml', hash: 'h', error: { code: 'CONFIG_INVALID', message: 'no' } },
  ];

  it('counts one simulator per shared seed and speed at its heap limit, each valid deployment, and the base', () => {
    const e = estimateMemory(specs);
    expect(e).toMatchObject({ simulators: 2, deployments: 4, simulatorBytes: 2 * 512 * MIB, baseBytes: DAEMON_BASE_BYTES });
    expect(e.totalBytes).toBe(2 * 512 * MIB + 4 * DEPLOYMENT_BYTES + DAEMON_BASE_BYTES);
  });

  it('uses the configured heap limit, and the speed override that decides which deployments share', () => {
    const e = estimateMemory([spec('a', '  simulator: { seed: 42, speed: 60 }'), spec('b', '  simulator: { seed: 42, speed: 120 }')], { simHeapMb: 256 });
    expect(e.simulators).toBe(2);
    expect(e.simulatorBytes).toBe(2 * 256 * MIB);
    expect(
      estimateMemory([spec('a', '  simulator: { seed: 42, speed: 60 }'), spec('b', '  simulator: { seed: 42, speed: 120 }')], { speed: 'max' }).simulators,
    ).toBe(1);
  });

  it('refuses a set above the limit with RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED and accepts one exactly at it', () => {
    const e = estimateMemory(specs);
    expect(codeOf(() => assertFits(e, e.totalBytes - 1, 'start'))).toBe('RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED');
    expect(codeOf(() => assertFits(e, e.totalBytes, 'reload'))).toBeUndefined();
  });
});

describe('createMemoryWatch', () => {
  const LIMIT = 1000 * MIB;
  const setup = () => {
    const clock = manualClock(0);
    let reading: MemoryReading = { rssBytes: 500 * MIB, heapUsedBytes: 100 * MIB };
    const changes: boolean[] = [];
    const watch = createMemoryWatch({ limitBytes: LIMIT, clock, everyMs: 1_000, read: () => reading, onChange: (high) => changes.push(high) });
    return { clock, watch, changes, set: (rssMb: number) => (reading = { rssBytes: rssMb * MIB, heapUsedBytes: 100 * MIB }) };
  };

  it('turns high at 90 % of the limit on the next sample of the clock, stays high down to 80 %, and clears below it', () => {
    const { clock, watch, changes, set } = setup();
    watch.start();
    expect(watch.reason()).toBeUndefined();
    set(900);
    expect(watch.reason()).toBeUndefined(); // not sampled yet
    clock.advance(1_000);
    expect(watch.reason()).toMatch(/^RUNTIME_DAEMON_MEMORY_HIGH: RSS 900 MB is 90 % of the memory limit 1000 MB/);
    expect(changes).toEqual([true]);
    set(850);
    clock.advance(1_000);
    expect(watch.reason()).toContain('RSS 850 MB');
    set(800);
    clock.advance(1_000);
    expect(changes).toEqual([true]);
    set(799);
    clock.advance(1_000);
    expect(watch.reason()).toBeUndefined();
    expect(changes).toEqual([true, false]);
    set(899);
    clock.advance(1_000);
    expect(changes).toEqual([true, false]);
    watch.stop();
    set(990);
    clock.advance(10_000);
    expect(changes).toEqual([true, false]);
  });

  it('serves RSS, heap, the limit and the high flag as unlabelled gauges', async () => {
    const { watch, set } = setup();
    const registry = new Registry();
    watch.metrics(registry);
    set(950);
    const families = parsePrometheusTextFormat(await registry.metrics());
    const value = (name: string): number => {
      const f = families.find((x) => x.name === name);
      expect(f?.metrics, name).toHaveLength(1);
      expect((f?.metrics[0] as { labels?: Record<string, string> }).labels ?? {}).toEqual({});
      return Number((f?.metrics[0] as { value: string }).value);
    };
    expect(value('chainpilot_daemon_rss_bytes')).toBe(950 * MIB);
    expect(value('chainpilot_daemon_heap_used_bytes')).toBe(100 * MIB);
    expect(value('chainpilot_daemon_memory_limit_bytes')).toBe(LIMIT);
    expect(value('chainpilot_daemon_memory_high')).toBe(1);
  });
});
