import path from 'node:path';
import { ensureAdminAccount } from '@mediagate/shared/accounts';
import { acceptedFields } from '@mediagate/shared/images';
import type { Router } from 'express';
import { consoleAccount } from '../../test/console';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';
import { contractsOf } from '../route';
import { routes } from '../routes';

let api: TestApi;
let admin: string;
beforeAll(async () => {
  // with a metrics token, so /metrics is served on the API port like every other route
  api = await startTestApi({ METRICS_TOKEN: 'openapi-test-metrics-token' });
  await ensureAdminAccount(api.database.db, { email: 'ops@example.test', password: 'operator-password' });
  const res = await call(api, 'POST', '/console/api/login', {
    json: { email: 'ops@example.test', password: 'operator-password' },
  });
  admin = ((await res.json()) as { token: string }).token;
});
afterAll(() => api.close());

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Every (method, path) the Express app routes, read from its routers. */
function servedRoutes(mounts: Array<[string, Router]>): string[] {
  const out: string[] = [];
  for (const [prefix, router] of mounts) {
    for (const layer of (router as unknown as { stack: Layer[] }).stack) {
      if (!layer.route) continue;
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== '_all') out.push(`${method} ${prefix}${layer.route.path}`);
      }
    }
  }
  return out.sort();
}

/** A route with its path parameters unnamed, so `/tokens/:id` and `/tokens/:tokenId` are the same route. */
const unnamed = (route: string) => route.replace(/:\w+/g, ':');

describe('OpenAPI document', () => {
  it('has a contract for every route the app serves, and no contract without a route', async () => {
    const mounts = api.app.locals.routeMounts as Array<[string, Router]>;
    const served = servedRoutes(mounts);
    expect(served.length).toBeGreaterThan(30);
    const documented = contractsOf(routes, api.deps).map((c) => `${c.method} ${c.path}`);
    expect(served.filter((r) => !documented.includes(r))).toEqual([]);
    // /docs is a mounted UI (static files), not a route of a router
    expect(documented.filter((r) => !served.includes(r))).toEqual(['get /docs']);
    const inDocument = (doc: { paths: Record<string, Record<string, unknown>> }) =>
      Object.entries(doc.paths).flatMap(([p, ops]) =>
        Object.keys(ops).map((m) => `${m} ${p.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1')}`),
      );
    const publicDoc = (await (await call(api, 'GET', '/openapi.json')).json()) as Parameters<
      typeof inDocument
    >[0];
    const operatorDoc = (await (
      await call(api, 'GET', '/admin/api/openapi.json', { headers: { authorization: `Bearer ${admin}` } })
    ).json()) as Parameters<typeof inDocument>[0];
    // the two documents together: every route, once
    expect([...inDocument(publicDoc), ...inDocument(operatorDoc)].sort()).toEqual([...documented].sort());
    // the public one names no operator route
    expect(inDocument(publicDoc).filter((r) => r.includes('/admin/'))).toEqual([]);
    expect(inDocument(operatorDoc).every((r) => r.includes(' /admin/'))).toBe(true);
  });

  it("serves the operators' document to an operator's session only", async () => {
    await expectError(await call(api, 'GET', '/admin/api/openapi.json'), 401, 'invalid_session');
    const user = await consoleAccount(api);
    await expectError(
      await call(api, 'GET', '/admin/api/openapi.json', {
        headers: { authorization: `Bearer ${user.session}` },
      }),
      403,
      'permission_denied',
    );
    const res = await call(api, 'GET', '/admin/api/openapi.json', {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(((await res.json()) as { paths: object }).paths)).toContain('/admin/api/accounts');
  });

  it("has every route the app serves in the fuzzers' endpoint list (e2e/test/fuzz/endpoints.ts)", async () => {
    const file = path.join(__dirname, '..', '..', '..', '..', 'e2e', 'test', 'fuzz', 'endpoints');
    const { ENDPOINTS } = (await import(file)) as { ENDPOINTS: Array<{ method: string; path: string }> };
    const fuzzed = new Set(ENDPOINTS.map((e) => unnamed(`${e.method.toLowerCase()} ${e.path}`)));
    const served = servedRoutes(api.app.locals.routeMounts as Array<[string, Router]>);
    expect(served.filter((r) => !fuzzed.has(unnamed(r)))).toEqual([]);
    const servedSet = new Set(served.map(unnamed));
    expect([...fuzzed].filter((r) => !servedSet.has(r))).toEqual([]);
  });

  it('shows image request bodies with exactly the fields the request check accepts', async () => {
    const doc = (await (await call(api, 'GET', '/openapi.json')).json()) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: Json }> } } }>;
    };
    type Json = { properties: Record<string, unknown>; additionalProperties?: boolean };
    const images = api.deps.catalog.images();
    const fieldsOf = (models: typeof images) => [...new Set(models.flatMap(acceptedFields))].sort();
    const generation = doc.paths['/v1/images/generations']!.post.requestBody.content['application/json']!;
    expect(Object.keys(generation.schema.properties).sort()).toEqual(fieldsOf(images));
    expect(generation.schema.additionalProperties).toBe(false);
    const edit = doc.paths['/v1/images/edits']!.post.requestBody.content['multipart/form-data']!;
    expect(Object.keys(edit.schema.properties).sort()).toEqual(
      fieldsOf(images.filter((m) => m.input.max > 0)),
    );
  });

  it('is served as OpenAPI 3.1 with schemas for requests, responses and errors', async () => {
    const res = await call(api, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    const create = doc.paths['/v1/videos'].post;
    expect(create.security).toEqual([{ apiKey: [] }]);
    const body = create.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties).sort()).toEqual(['metadata', 'model', 'prompt']);
    expect(body.additionalProperties).toBe(false);
    expect(create.requestBody.content['multipart/form-data']).toBeDefined();
    expect(create.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/VideoTask',
    });
    expect(doc.components.schemas.VideoTask.properties.status.enum).toEqual([
      'pending',
      'processing',
      'succeeded',
      'failed',
    ]);
    expect(doc.components.schemas.Error.properties.error).toBeDefined();
    const get = doc.paths['/v1/videos/{taskId}'].get;
    expect(get.parameters).toEqual([
      { name: 'taskId', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    const list = doc.paths['/v1/videos'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'after', 'status']),
    );
    // every $ref points at a defined component
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (m) => m[1]!,
    );
    for (const ref of refs) expect(doc.components.schemas[ref]).toBeDefined();
  });

  it('serves a browsable reference at /docs without reaching the network', async () => {
    const res = await fetch(`${api.url}/docs/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/swagger-ui/i);
    expect(html).not.toMatch(/https?:\/\/(unpkg|cdn)/);
    const script = await fetch(`${api.url}/docs/swagger-ui-bundle.js`);
    expect(script.status).toBe(200);
  });
});
