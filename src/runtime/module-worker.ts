/**
 * Worker threads that run one of chainpilot's modules: the compiled `.js` module, or in a checkout
 * whose dist/ is stale the TypeScript source through tsx (as bin/chainpilot.js does). The boot code
 * is a `data:` URL module, so no file has to ship beside the compiled code (tsc would not copy one).
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

const BOOT = new URL(
  `data:text/javascript,${encodeURIComponent(`import { workerData } from 'node:worker_threads';
if (workerData.tsxApi) (await import(workerData.tsxApi)).register();
await import(workerData.entry);`)}`,
);

/**
 * The URL of module `name` (without extension) next to `base` (a module's `import.meta.url`), with
 * the extension `base` has: `.ts` when running from the sources, `.js` when compiled.
 */
export function siblingModule(name: string, base: string): URL {
  return new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}

/**
 * Starts a worker thread on module `entry` with `data` as its `workerData` (plus `entry` and, for a
 * `.ts` module, tsx's loader); `resourceLimits` bound its heap (the worker alone dies past them).
 */
export function startModuleWorker(entry: URL, data: Readonly<Record<string, unknown>>, options: { readonly resourceLimits?: ResourceLimits } = {}): Worker {
  const tsxApi = entry.pathname.endsWith('.ts') ? import.meta.resolve('tsx/esm/api') : undefined;
  return new Worker(BOOT, {
    workerData: { ...data, entry: entry.href, tsxApi },
    ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
  });
}
