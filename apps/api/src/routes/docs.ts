import type { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { ApiDeps } from '../deps';
import { routeContracts } from '../openapi/contracts';
import { buildOpenApiDocument } from '../openapi/document';

/** GET /openapi.json (OpenAPI 3.1, generated from the zod contracts) and GET /docs (Swagger UI, served locally). */
export function register(router: Router, deps: ApiDeps): void {
  const document = buildOpenApiDocument(routeContracts(deps), { version: '1' });
  router.get('/openapi.json', (_req, res) => {
    res.status(200).json(document);
  });
  router.use(
    '/docs',
    swaggerUi.serveFiles(document),
    swaggerUi.setup(document, { customSiteTitle: 'mediagate API' }),
  );
}
