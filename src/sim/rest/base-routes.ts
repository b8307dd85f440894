/** Every route of the token data API ({base_url}). */
import { addDcaRoutes } from './dca-routes.js';
import { addDiscoveryRoutes } from './discovery-routes.js';
import { addHolderRoutes } from './holder-routes.js';
import { addHolderChartRoute } from './holder-chart-route.js';
import { addLighthouseRoute } from './lighthouse-route.js';
import { addPnlRoutes } from './pnl-routes.js';
import { addPriceRoutes } from './price-routes.js';
import { createRestRouter, type RestRouter } from './rest-router.js';
import { addTokenRoutes } from './token-routes.js';
import { addTradeRoutes } from './trade-routes.js';

export function createBaseRoutes(): RestRouter {
  const r = createRestRouter();
  addTokenRoutes(r);
  addHolderRoutes(r);
  addHolderChartRoute(r);
  addDiscoveryRoutes(r);
  addLighthouseRoute(r);
  addPriceRoutes(r);
  addTradeRoutes(r);
  addDcaRoutes(r);
  addPnlRoutes(r);
  return r;
}
