import type { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { ApiDeps } from '../deps';
import { requireAdmin } from '../middleware/session';
import { buildOpenApiDocument } from '../openapi/document';
import { type ContractDeps, contractsOf, endpoints, type Route, type RouteContract } from '../route';

const op = endpoints({ tag: 'operations', auth: 'none' });

export const contracts: RouteContract[] = [
  op('GET /openapi.json', "This document (every route but the operators')", { 200: 'OpenAPI 3.1 document' }),
  op('GET /docs', 'Browsable API reference', { 200: { description: 'HTML page', contentType: 'text/html' } }),
  op('GET /admin/api/openapi.json', "The operators' routes (an operator's session only)", {
    tag: 'admin',
    auth: 'admin',
    200: 'OpenAPI 3.1 document',
  }),
];

/** Whether a contract is an operator's route (it goes in the operators' document only). */
const isOperatorRoute = (c: RouteContract): boolean => c.auth === 'admin';

/**
 * GET /openapi.json and GET /docs (Swagger UI, served locally): OpenAPI 3.1 of every route of
 * `documented()` (the app's route list) but the operators'. GET /admin/api/openapi.json: the
 * operators' routes, to an operator's session only (401 without a session, 403 for anyone else),
 * so the public document does not map the operator surface for everyone.
 */
export function docsRoute(documented: () => readonly Route[]): Route {
  return {
    mount: '',
    contracts,
    register(router: Router, deps: ApiDeps): void {
      const all = contractsOf(documented(), deps);
      const document = buildOpenApiDocument(
        all.filter((c) => !isOperatorRoute(c)),
        { version: '1' },
      );
      const operatorDocument = buildOpenApiDocument(all.filter(isOperatorRoute), { version: '1' });
      router.get('/openapi.json', (_req, res) => {
        res.status(200).json(document);
      });
      router.get('/admin/api/openapi.json', ...requireAdmin(deps), (_req, res) => {
        res.status(200).json(operatorDocument);
      });
      router.use(
        '/docs',
        swaggerUi.serveFiles(document),
        swaggerUi.setup(document, { customSiteTitle: 'mediagate API' }),
      );
    },
  };
}

/**
 * The OpenAPI document of every route of `documented`, the operators' included: the console's
 * client is typed from it (GET /openapi.json serves its public part, /admin/api/openapi.json the rest).
 */
export function openApiDocument(documented: readonly Route[], deps: ContractDeps) {
  return buildOpenApiDocument(contractsOf(documented, deps), { version: '1' });
}
