/** A tiny path router: `/tokens/:token/holders` style patterns, static segments win over params. */
import type { MarketState } from '../model/market-state.js';

export interface RestRequest {
  readonly method: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly state: MarketState;
}

export type RestHandler = (req: RestRequest) => unknown;

interface Route {
  readonly method: string;
  readonly parts: readonly string[];
  readonly handler: RestHandler;
  readonly staticCount: number;
}

export interface RestRouter {
  add(method: string, pattern: string, handler: RestHandler): void;
  match(method: string, path: string): { handler: RestHandler; params: Record<string, string> } | undefined;
}

export function createRestRouter(): RestRouter {
  const routes: Route[] = [];
  return {
    add(method, pattern, handler) {
      const parts = pattern.split('/').filter((p) => p.length > 0);
      routes.push({ method, parts, handler, staticCount: parts.filter((p) => !p.startsWith(':')).length });
      routes.sort((a, b) => b.staticCount - a.staticCount);
    },
    match(method, path) {
      const segs = path
        .split('/')
        .filter((p) => p.length > 0)
        .map((s) => decodeURIComponent(s));
      for (const r of routes) {
        if (r.method !== method || r.parts.length !== segs.length) continue;
        const params: Record<string, string> = {};
        let ok = true;
        for (let i = 0; i < segs.length && ok; i++) {
          const p = r.parts[i]!;
          if (p.startsWith(':')) params[p.slice(1)] = segs[i]!;
          else if (p !== segs[i]) ok = false;
        }
        if (ok) return { handler: r.handler, params };
      }
      return undefined;
    },
  };
}
