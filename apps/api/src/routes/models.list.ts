import { toModelObject } from '@mediagate/shared/catalog';
import { listOf, modelObject } from '@mediagate/shared/contracts';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { requireApiKey } from '../middleware/auth';
import { endpoint, type Route } from '../route';

/** GET /v1/models: every model of the catalog in the OpenAI list shape, with what each accepts. */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/models', requireApiKey(deps), (_req, res) => {
    res.status(200).json({ object: 'list', data: deps.catalog.models.map(toModelObject) });
  });
}

export const contract = endpoint('GET /v1/models', 'List models', {
  tag: 'models',
  auth: 'apiKey',
  200: listOf(modelObject, 'ModelList'),
});

export const route: Route = { mount: '/v1', contracts: [contract], register };
