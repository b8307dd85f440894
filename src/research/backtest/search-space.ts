/**
 * The axes a sweep searches: the `--set` axes and the sweep file's `space:` when given, else every
 * parameter space the deployment's enabled strategies declare (`space:` in `defineStrategy`), as
 * `strategies[ID].params.NAME` (ID: the strategy's `id:`, else the id its definition declares;
 * its position when that id has characters a path cannot hold).
 */
import { ChainpilotError } from '../../core/index.js';
import { loadDeployment } from '../../config/index.js';
import { spaceValues, type ParamSpace } from '../../engine/strategy/param-space.js';
import { resolveStrategies } from '../../runtime/compose/resolve-strategies.js';
import type { SweepAxis } from './sweep-grid.js';

/** The axes of the spaces `file`'s enabled strategies declare, in strategy then declaration order. */
export async function declaredAxes(file: string, env?: Readonly<Record<string, string | undefined>>): Promise<SweepAxis[]> {
  const loaded = loadDeployment(file, env ? { env } : {});
  const instances = await resolveStrategies(loaded);
  const enabled = loaded.deployment.strategies.map((s, i) => ({ s, i })).filter(({ s }) => s.enabled);
  const axes: SweepAxis[] = [];
  instances.forEach((inst, k) => {
    const { s, i } = enabled[k]!;
    const space = (inst.definition.space ?? {}) as Readonly<Record<string, ParamSpace | undefined>>;
    // the strategy's id (its `id:`, else its definition's; unique in a deployment), when the path syntax can hold it
    const id = /^[\w-]+$/.test(inst.id) ? inst.id : String(i);
    for (const [name, sp] of Object.entries(space)) {
      if (!sp) continue;
      const values = spaceValues(sp);
      const bad = values.filter((v) => !inst.definition.params.safeParse({ ...(s.params as object), [name]: v }).success);
      if (bad.length > 0)
        throw new ChainpilotError('BACKTEST_SPACE_INVALID', `strategy ${inst.id} declares space.${name} with values its params refuse: ${bad.join(', ')}`, {
          retry: 'not_retryable',
          context: { strategyId: inst.id, param: name },
        });
      axes.push({ path: `strategies[${id}].params.${name}`, values });
    }
  });
  return axes;
}
