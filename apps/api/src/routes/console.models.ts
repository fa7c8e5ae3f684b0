import { listOf } from '@mediagate/shared/contracts';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { requireSession } from '../middleware/session';
import { endpoint, type Route } from '../route';

/** GET /console/api/models: the catalog's model ids and kinds, for the console's key limits. */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/models', requireSession(deps), (_req, res) => {
    res.status(200).json({
      object: 'list',
      data: deps.catalog.models.map((m) => ({ object: 'model', id: m.id, type: m.kind })),
    });
  });
}

const consoleModel = z.object({
  object: z.literal('model'),
  id: z.string(),
  type: z.enum(['image', 'video']),
});

export const contract = endpoint('GET /console/api/models', 'Model ids of the catalog (for key limits)', {
  tag: 'console',
  auth: 'session',
  200: listOf(consoleModel, 'ConsoleModelList'),
});

export const route: Route = { mount: '/console/api', contracts: [contract], register };
