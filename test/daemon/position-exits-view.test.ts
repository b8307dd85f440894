/**
 * The deployment detail view lists each open position's exit levels as the engine's exit manager
 * holds them. Real simulator, real engine and paper executor (the shipped paper-sim deployment).
 */
import BigNumber from 'bignumber.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import type { DeploymentHandle } from '../../src/runtime/handle/deployment-handle.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import { deploymentDetailBody } from '../../src/service/api-schemas.js';
import { detailView } from '../../src/service/api-views.js';
import { paperSimYaml, tempDir, until, type TempDir } from '../runtime/helpers.js';

let tmp: TempDir | undefined;
let handle: DeploymentHandle | undefined;
afterEach(async () => {
  await handle?.stop();
  handle = undefined;
  tmp?.remove();
  tmp = undefined;
});

const view = (h: DeploymentHandle) =>
  deploymentDetailBody.parse(
    detailView({ name: 'paper-sim', file: 'paper.yaml', mode: 'paper', state: 'running', cause: undefined, restarts: 0, restartAt: undefined, handle: h }),
  );

describe('position exit levels in the detail view', () => {
  it('lists take profits at entry × multiple, the stop loss 2000 bps below entry and the time stop 10 minutes after opening, for a curve-momentum position of paper-sim', async () => {
    tmp = tempDir('cp-exits-');
    const file = tmp.write('paper.yaml', paperSimYaml());
    const h = (handle = createDeployment(loadDeployment(file), { mode: 'paper', speed: 'max', seed: 7 }));
    await h.start();
    await until(
      () => view(h).positions.some((p) => p.strategyId === 'curve-momentum' && p.exits !== null),
      'an open curve-momentum position with exits',
      60_000,
    );
    h.pause('inspect');
    const p = view(h).positions.find((q) => q.strategyId === 'curve-momentum' && q.exits !== null)!;
    const x = p.exits!;
    const entry = new BigNumber(x.entryPrice);
    expect(entry.gt(0)).toBe(true);
    // entry is the average price bought at (fees aside): close to cost ÷ tokens, never above it
    const costPrice = new BigNumber(p.costLamports).div(1e9).div(new BigNumber(p.tokenRaw).shiftedBy(-p.decimals));
    expect(entry.lte(costPrice)).toBe(true);
    expect(entry.gt(costPrice.times(0.97))).toBe(true);
    for (const t of x.takeProfit) {
      expect(['1.3', '1.8'][t.level - 1]).toBe(t.multiple);
      expect(t.price).toBe(entry.times(t.multiple).toFixed());
    }
    expect(x.takeProfit.map((t) => t.level)).toEqual(x.takeProfit.length === 2 ? [1, 2] : [2]);
    // entry × (1 − 2000 bps), exact to the 40 decimal places prices carry
    expect(new BigNumber(x.stopLossPrice!).minus(entry.times('0.8')).abs().lte('1e-40')).toBe(true);
    expect(x.timeStopAt).toBe(p.openedAt + 10 * 60_000);
    if (x.trailingStopPrice !== null) {
      // armed: 1500 bps below a high above entry, so above entry × 0.85
      expect(new BigNumber(x.trailingStopPrice).gt(entry.times(0.85))).toBe(true);
    }
  }, 90_000);
});
