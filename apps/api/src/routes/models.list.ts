import { toModelObject } from '@mediagate/shared';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { requireApiKey } from '../middleware/auth';

/** GET /v1/models: every model of the catalog in the OpenAI list shape, with what each accepts. */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/models', requireApiKey(deps), (_req, res) => {
    res.status(200).json({ object: 'list', data: deps.catalog.models.map(toModelObject) });
  });
}
