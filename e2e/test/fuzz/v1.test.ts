import type { Stack } from '../stack';
import { ENDPOINTS, endpointName, type Known, requestsFor } from './endpoints';
import { expectApiAlive, fuzz } from './kit';
import { startFuzzStack } from './setup';

// Property-based requests against every /v1 route of the real API process: whatever the body,
// path, query or credentials, the answer is never a 5xx and every error is in the OpenAI shape.
let stack: Stack;
let known: Known;
beforeAll(async () => {
  ({ stack, known } = await startFuzzStack());
}, 90_000);
afterAll(() => stack?.stop());

const v1 = ENDPOINTS.filter((e) => e.path.startsWith('/v1/'));

describe('fuzzing the /v1 API', () => {
  it.each(v1.map((e) => [endpointName(e), e] as const))('%s', async (_name, endpoint) => {
    await fuzz(stack, requestsFor(endpoint, known), endpoint.runs);
  });

  it('leaves the API process alive and healthy', async () => {
    await expectApiAlive(stack);
  });
});
