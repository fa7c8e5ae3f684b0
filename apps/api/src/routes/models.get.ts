import { ApiError, toModelObject } from '@mediagate/shared';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { requireApiKey } from '../middleware/auth';

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
