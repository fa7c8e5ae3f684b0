import type { Router } from 'express';
import { call, startTestApi, type TestApi } from '../../test/harness';
import { routeContracts } from './contracts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
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

describe('OpenAPI document', () => {
  it('has a contract for every route the app serves, and no contract without a route', async () => {
    const mounts = api.app.locals.routeMounts as Array<[string, Router]>;
    const served = servedRoutes(mounts);
    expect(served.length).toBeGreaterThan(30);
    const documented = routeContracts(api.deps).map((c) => `${c.method} ${c.path}`);
    expect(served.filter((r) => !documented.includes(r))).toEqual([]);
    // /docs is a mounted UI (static files), not a route of a router
    expect(documented.filter((r) => !served.includes(r))).toEqual(['get /docs']);
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
