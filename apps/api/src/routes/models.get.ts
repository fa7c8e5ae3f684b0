import { toModelObject } from '@mediagate/shared/catalog';
import { modelObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { requireApiKey } from '../middleware/auth';
import { endpoint, type Route } from '../route';

/** GET /v1/models/{id}: one model of the catalog, or 404 model_not_found. */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/models/:id', requireApiKey(deps), (req, res) => {
    const id = String(req.params.id);
    const model = deps.catalog.get(id);
    if (!model)
      throw new ApiError('model_not_found', `The model '${id.slice(0, 100)}' does not exist.`, 'model');
    res.status(200).json(toModelObject(model));
  });
}

export const contract = endpoint(
  'GET /v1/models/:id',
  'A model with its capabilities, parameters and price',
  { tag: 'models', auth: 'apiKey', 200: modelObject },
);

export const route: Route = { mount: '/v1', contracts: [contract], register };
