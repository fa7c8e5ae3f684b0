// The TypeScript types of the API, generated from the OpenAPI document that the API itself serves
// at /openapi.json (built from its route contracts), so the console's client cannot drift from it.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';

const require = createRequire(import.meta.url);

/** The OpenAPI document of the built API (`@mediagate/api` dist), as GET /openapi.json answers it. */
export function apiDocument() {
  const { routes } = require('@mediagate/api/dist/routes.js');
  const { openApiDocument } = require('@mediagate/api/dist/routes/docs.js');
  const { defaultCatalog } = require('@mediagate/shared/catalog');
  return openApiDocument(routes, { catalog: defaultCatalog() });
}

const ROOT = path.join(import.meta.dirname, '..', '..', '..');

/** The generated `schema.d.ts` text, formatted as the repository formats TypeScript (Biome). */
export async function generateTypes() {
  const ast = await openapiTS(apiDocument());
  const text = `// Generated from the API's OpenAPI document by \`pnpm gen:api\`; do not edit.\n\n${astToString(ast)}`;
  const biome = spawnSync(
    path.join(ROOT, 'node_modules', '.bin', 'biome'),
    ['format', '--stdin-file-path=apps/console/src/api/schema.d.ts'],
    { cwd: ROOT, input: text, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (biome.status !== 0) throw new Error(`biome format failed: ${biome.stderr}`);
  return biome.stdout;
}
