/**
 * The Prometheus text of a registry, rendered in slices: the render yields the event loop between
 * metric families once it has run {@link RENDER_SLICE_MS} (the deployments trade in between; one
 * family is never split). The text is the same as `registry.metrics()`.
 */
import type { Registry } from 'prom-client';

/** A render yields the event loop once it has spent this long (wall ms) since its last turn. */
export const RENDER_SLICE_MS = 5;

const yieldTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

export async function renderSliced(registry: Registry): Promise<string> {
  const parts: string[] = [];
  let slice = performance.now();
  for (const m of registry.getMetricsAsArray()) {
    parts.push(await registry.getSingleMetricAsString(m.name));
    // families until a slice's time is spent, then a turn for the deployments
    if (performance.now() - slice >= RENDER_SLICE_MS) {
      await yieldTurn();
      slice = performance.now();
    }
  }
  return `${parts.join('\n\n')}\n`;
}
