/** The prediction-markets API ({prediction_url}/v1/...), from the simulator's small prediction model. */
import { createRestRouter, type RestRouter } from './rest-router.js';
import { addPredictionEventRoutes } from './prediction-event-routes.js';
import { addPredictionMarketRoutes } from './prediction-market-routes.js';
import { addPredictionAccountRoutes } from './prediction-account-routes.js';

export function createPredictionRoutes(): RestRouter {
  const r = createRestRouter();
  addPredictionEventRoutes(r);
  addPredictionMarketRoutes(r);
  addPredictionAccountRoutes(r);
  return r;
}
