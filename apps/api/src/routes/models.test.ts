import { defaultCatalog } from '@mediagate/shared/catalog';
import { expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';
import * as modelsGet from './models.get';
import * as modelsList from './models.list';

// biome-ignore lint/suspicious/noExplicitAny: tests read free-form JSON answers
type Json = Record<string, any>;

let api: TestApi;
let key: string;
beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.account(1));
});
afterAll(() => api.close());

describe('GET /v1/models', () => {
  it('lists every catalog model in the OpenAI list shape, with what each accepts', async () => {
    const res = await call(api, 'GET', '/v1/models', { key });
    const body = (await expectContract(res, modelsList.contract, 200)) as {
      object: string;
      data: Array<Json>;
    };
    expect(body.object).toBe('list');
    expect(body.data.map((m) => m.id)).toEqual(defaultCatalog().models.map((m) => m.id));
    for (const m of body.data) {
      expect(m).toMatchObject({ object: 'model', created: expect.any(Number), owned_by: 'mediagate' });
      expect(m.parameters).toBeDefined();
      expect(m.pricing).toBeDefined();
    }
    const seedream = body.data.find((m) => m.id === 'seedream-4.5')!;
    expect(seedream).toMatchObject({
      type: 'image',
      endpoints: ['/v1/images/generations', '/v1/images/edits'],
      capabilities: ['text-to-image', 'image-to-image', 'multi-image-fusion', 'batch'],
      pricing: { unit: 'image', price_micro_usd: 40_000 },
      parameters: {
        size: { named: ['2K', '4K'], minPixels: 3_686_400, maxPixels: 16_777_216 },
        image: { min: 0, max: 14 },
        n: { max: 15 },
        watermark: { type: 'boolean' },
      },
    });
  });

  it('answers one model, 404 model_not_found for an unknown one, 401 without a key', async () => {
    const res = await call(api, 'GET', '/v1/models/seedream-3.0', { key });
    expect(await expectContract(res, modelsGet.contract, 200)).toMatchObject({
      id: 'seedream-3.0',
      object: 'model',
      parameters: { n: { max: 4 } },
    });
    const video = (await (
      await call(api, 'GET', '/v1/models/wan2.5-i2v-flash-10s-720p', { key })
    ).json()) as Json;
    expect(video).toMatchObject({
      type: 'video',
      parameters: { duration_seconds: 10, resolution: '720P', audio: 'always' },
    });
    await expectError(await call(api, 'GET', '/v1/models/dall-e-3', { key }), 404, 'model_not_found');
    await expectError(await call(api, 'GET', '/v1/models'), 401, 'invalid_api_key');
  });
});
