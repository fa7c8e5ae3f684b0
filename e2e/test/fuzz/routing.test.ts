import fc from 'fast-check';
import type { Stack } from '../stack';
import { encodedJson } from './bodies';
import { ENDPOINTS, type Known } from './endpoints';
import { authHeaders, oddHeaders, pathSegment, queryString } from './http-parts';
import { anyJson } from './json';
import { expectApiAlive, type FuzzRequest, fuzz, printable } from './kit';
import { startFuzzStack } from './setup';

// Property-based requests at the edges of routing: unknown paths, known paths with another
// method, the health and metrics endpoints, and the operators' queue dashboard. Never a 5xx;
// every error in the OpenAI shape.
let stack: Stack;
let known: Known;
beforeAll(async () => {
  ({ stack, known } = await startFuzzStack());
}, 90_000);
afterAll(() => stack?.stop());

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
const body = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constant({ headers: {} as Record<string, string>, body: undefined as Buffer | undefined }),
  },
  { weight: 1, arbitrary: encodedJson(anyJson) },
);

function request(
  method: fc.Arbitrary<string>,
  path: fc.Arbitrary<string>,
  auth: fc.Arbitrary<Record<string, string>>,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({ method, path, query: queryString(['x', 'limit', 'after']), auth, odd: oddHeaders, body })
    .map(({ method, path, query, auth, odd, body }) =>
      printable({
        method,
        path: path + query,
        headers: { ...odd, ...auth, ...body.headers },
        // a HEAD or GET with a body is legal but pointless; keep them for the others
        body: method === 'HEAD' ? undefined : body.body,
      }),
    );
}

const PREFIXES = [
  '',
  '/v1',
  '/v2',
  '/v1/videos/x',
  '/console/api',
  '/console',
  '/admin/api',
  '/admin',
  '/payments',
  '/media',
  '/healthz',
];

describe('fuzzing routing', () => {
  it('answers unknown routes with a 404 in the error shape', async () => {
    const path = fc
      .tuple(fc.constantFrom(...PREFIXES), fc.array(pathSegment([]), { minLength: 1, maxLength: 4 }))
      .map(([prefix, segments]) => `${prefix}/${segments.join('/')}`);
    await fuzz(stack, request(fc.constantFrom(...METHODS), path, authHeaders(known, 'key')), 600);
  });

  it('answers a known path with another method in the error shape', async () => {
    const pick = fc.constantFrom(...ENDPOINTS).chain((e) =>
      fc.record({
        method: fc.constantFrom(...METHODS.filter((m) => m !== e.method)),
        path: fc.constant(e.path.replace(/:(\w+)/g, (_m, p: string) => known.ids[p]?.[0] ?? 'x')),
        auth: authHeaders(known, e.auth),
      }),
    );
    const requests = pick.chain(({ method, path, auth }) =>
      request(fc.constant(method), fc.constant(path), fc.constant(auth)),
    );
    await fuzz(stack, requests, 500);
  });

  it.each(['/healthz', '/readyz', '/metrics'])('serves %s whatever the request looks like', async (path) => {
    await fuzz(
      stack,
      request(fc.constantFrom(...METHODS), fc.constant(path), authHeaders(known, 'none')),
      40,
    );
  });

  it('keeps the queue dashboard to operators', async () => {
    const path = fc
      .array(pathSegment(['api', 'queues', 'static', 'video-tasks', 'callbacks']), { maxLength: 3 })
      .map((segments) => `/admin/queues/${segments.join('/')}`);
    const notAdmin = authHeaders(known, 'session').filter(
      (h) => !Object.values(h).some((v) => v.includes(known.admin)),
    );
    await fuzz(stack, request(fc.constantFrom(...METHODS), path, notAdmin), 200);
  });

  it('leaves the API process alive and healthy', async () => {
    await expectApiAlive(stack);
  });
});
