// The TypeScript types of the API, generated from the OpenAPI document that the API itself serves
// at /openapi.json (built from its route contracts), so the console's client cannot drift from it.
import { createRequire } from 'node:module';
import openapiTS, { astToString } from 'openapi-typescript';

const require = createRequire(import.meta.url);

/** The OpenAPI document of the built API (`@mediagate/api` dist), as GET /openapi.json answers it. */
export function apiDocument() {
  const { routeContracts } = require('@mediagate/api/dist/openapi/contracts.js');
  const { buildOpenApiDocument } = require('@mediagate/api/dist/openapi/document.js');
  const { defaultCatalog } = require('@mediagate/shared');
  return buildOpenApiDocument(routeContracts({ catalog: defaultCatalog() }), { version: '1' });
}

/** The generated `schema.d.ts` text. */
export async function generateTypes() {
  const ast = await openapiTS(apiDocument());
  return `// Generated from the API's OpenAPI document by \`pnpm gen:api\`; do not edit.\n\n${astToString(ast)}`;
}
