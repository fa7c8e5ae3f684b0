// Writes src/api/schema.d.ts from the API's OpenAPI document (run after building the API).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateTypes } from './openapi-types.mjs';

const out = path.join(import.meta.dirname, '..', 'src', 'api', 'schema.d.ts');
writeFileSync(out, await generateTypes());
console.log(`wrote ${out}`);
