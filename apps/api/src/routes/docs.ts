import type { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { ApiDeps } from '../deps';
import { buildOpenApiDocument } from '../openapi/document';
import { type ContractDeps, contractsOf, endpoints, type Route, type RouteContract } from '../route';

const op = endpoints({ tag: 'operations', auth: 'none' });

export const contracts: RouteContract[] = [
  op('GET /openapi.json', 'This document', { 200: 'OpenAPI 3.1 document' }),
  op('GET /docs', 'Browsable API reference', { 200: { description: 'HTML page', contentType: 'text/html' } }),
];

/**
 * GET /openapi.json (OpenAPI 3.1, generated from the contracts of `documented()`, the app's route
 * list) and GET /docs (Swagger UI, served locally).
 */
export function docsRoute(documented: () => readonly Route[]): Route {
  return {
    mount: '',
    contracts,
    register(router: Router, deps: ApiDeps): void {
      const document = openApiDocument(documented(), deps);
      router.get('/openapi.json', (_req, res) => {
        res.status(200).json(document);
      });
      router.use(
        '/docs',
        swaggerUi.serveFiles(document),
        swaggerUi.setup(document, { customSiteTitle: 'mediagate API' }),
      );
    },
  };
}

/** The OpenAPI document of `documented`, as GET /openapi.json serves it. */
export function openApiDocument(documented: readonly Route[], deps: ContractDeps) {
  return buildOpenApiDocument(contractsOf(documented, deps), { version: '1' });
}
