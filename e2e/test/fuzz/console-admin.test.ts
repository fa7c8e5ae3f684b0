import type { Stack } from '../stack';
import { ENDPOINTS, endpointName, type Known, requestsFor } from './endpoints';
import { expectApiAlive, fuzz } from './kit';
import { startFuzzStack } from './setup';

// Property-based requests against the console, the operators' API and the payment notifications
// of the real API process: never a 5xx, every error in the OpenAI shape (429 from the brute-force
// limits included).
let stack: Stack;
let known: Known;
beforeAll(async () => {
  ({ stack, known } = await startFuzzStack());
}, 90_000);
afterAll(() => stack?.stop());

const routes = ENDPOINTS.filter((e) => !e.path.startsWith('/v1/'));

describe('fuzzing the console, operators and payments APIs', () => {
  it.each(routes.map((e) => [endpointName(e), e] as const))('%s', async (_name, endpoint) => {
    await fuzz(stack, requestsFor(endpoint, known), endpoint.runs);
  });

  it('leaves the API process alive and healthy', async () => {
    await expectApiAlive(stack);
  });
});
