import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { requireSession } from '../middleware/session';

/** GET /console/api/models: the catalog's model ids and kinds, for the console's key limits. */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/models', requireSession(deps), (_req, res) => {
    res.status(200).json({
      object: 'list',
      data: deps.catalog.models.map((m) => ({ object: 'model', id: m.id, type: m.kind })),
    });
  });
}
