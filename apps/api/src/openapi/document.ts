import { errorResponse } from '@mediagate/shared/contracts';
import { z } from 'zod';
import type { Auth, RouteContract } from '../route';

const SECURITY: Record<Auth, Array<Record<string, string[]>>> = {
  apiKey: [{ apiKey: [] }],
  session: [{ session: [] }, { sessionCookie: [] }],
  admin: [{ session: [] }, { sessionCookie: [] }],
  signature: [],
  none: [],
};

/** JSON Schema (2020-12, what OpenAPI 3.1 uses) of a zod schema; named schemas go to components. */
function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, unknown>): unknown {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  // zod names nested schemas with a meta id under $defs; OpenAPI keeps them in components
  const json = JSON.parse(JSON.stringify(raw).replaceAll('"#/$defs/', '"#/components/schemas/')) as Record<
    string,
    unknown
  > & { $defs?: Record<string, unknown> };
  const { $defs, $schema: _schema, id: _id, ...rest } = json;
  for (const [name, def] of Object.entries($defs ?? {})) {
    // one name, one schema: a second, different schema under a name would silently replace the first
    if (name in components && JSON.stringify(components[name]) !== JSON.stringify(def)) {
      throw new Error(`Two different schemas are named ${name}.`);
    }
    components[name] = def;
  }
  // a named top-level schema comes back as a $ref to its own $defs entry
  return rest;
}

const openApiPath = (p: string) => p.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The OpenAPI 3.1 document, generated from the route contracts and their zod schemas. */
export function buildOpenApiDocument(contracts: RouteContract[], info: { version: string }) {
  const components: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  const errorRef = toSchema(errorResponse, 'output', components);
  for (const c of contracts) {
    const params = [...c.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const query = c.query
      ? Object.entries(
          (
            toSchema(c.query, 'input', components) as {
              properties?: Record<string, unknown>;
              required?: string[];
            }
          ).properties ?? {},
        ).map(([name, schema]) => ({ name, in: 'query', required: false, schema }))
      : [];
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(c.responses)) {
      responses[status] = {
        description: r.description,
        ...(r.schema
          ? {
              content: {
                [r.contentType ?? 'application/json']: { schema: toSchema(r.schema, 'output', components) },
              },
            }
          : r.contentType
            ? { content: { [r.contentType]: { schema: { type: 'string' } } } }
            : {}),
      };
    }
    responses.default = {
      description: 'error (every non-2xx answer has this shape)',
      content: { 'application/json': { schema: errorRef } },
    };
    let requestBody: unknown;
    if (c.body) {
      const schema = toSchema(c.body.schema, 'input', components);
      const content: Record<string, unknown> = {};
      if (c.body.json ?? !c.body.multipart) content['application/json'] = { schema };
      if (c.body.multipart) content['multipart/form-data'] = { schema };
      requestBody = { required: true, content };
    }
    const path = openApiPath(c.path);
    paths[path] ??= {};
    paths[path][c.method] = {
      summary: c.summary,
      tags: [c.tag],
      operationId: `${c.method}${c.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, ch: string | undefined) => (ch ? ch.toUpperCase() : ''))}`,
      security: SECURITY[c.auth],
      parameters: [...params, ...query],
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mediagate',
      version: info.version,
      description:
        'OpenAI-compatible gateway for image generation, image editing and image-to-video. Use the official openai client with base URL {base_url}/v1.',
    },
    servers: [{ url: '/' }],
    tags: ['videos', 'callbacks', 'images', 'models', 'console', 'admin', 'payments', 'operations'].map(
      (name) => ({ name }),
    ),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'an sk- key' },
        session: { type: 'http', scheme: 'bearer', description: 'a console session token (cs_...)' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'mg_session' },
      },
    },
  };
}
