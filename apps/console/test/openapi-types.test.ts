import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without types
import { generateTypes } from '../scripts/openapi-types.mjs';

describe('the generated API client types', () => {
  it('match the OpenAPI document the API serves (run `pnpm --filter @mediagate/console gen:api` after changing a route contract)', async () => {
    const committed = readFileSync(path.join(import.meta.dirname, '..', 'src', 'api', 'schema.d.ts'), 'utf8');
    expect(committed).toBe(await generateTypes());
  });
});
