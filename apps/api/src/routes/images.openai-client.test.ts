import type { RunningSim } from '@mediagate/shared/testing';
import OpenAI, { toFile } from 'openai';
import type { TestApi } from '../../test/harness';
import { pngBytes, startImagesApi } from '../../test/images';

let api: TestApi;
let sim: RunningSim;
let close: () => Promise<void>;
let client: OpenAI;

beforeAll(async () => {
  const started = await startImagesApi();
  ({ api, close } = started);
  sim = started.sims[0]!;
  const { key } = await api.account(20);
  client = new OpenAI({ apiKey: key, baseURL: `${api.url}/v1`, maxRetries: 0 });
});
afterAll(() => close());

type WithReport = OpenAI.ImagesResponse & { requested: number; delivered: number };

describe('the official openai client', () => {
  it('images.generate with n and size', async () => {
    const res = (await client.images.generate({
      model: 'seedream-4.0',
      prompt: 'three paper boats',
      n: 3,
      size: '1280x720' as OpenAI.ImageGenerateParams['size'],
    })) as WithReport;
    expect(res.data).toHaveLength(3);
    expect(res.data!.every((d) => d.url?.endsWith('-1280x720.png'))).toBe(true);
    expect(typeof res.created).toBe('number');
    expect({ requested: res.requested, delivered: res.delivered }).toEqual({ requested: 3, delivered: 3 });
  });

  it('images.generate with b64_json and model-specific parameters', async () => {
    const res = (await client.images.generate({
      model: 'seedream-3.0',
      prompt: 'a fox',
      size: '512x512',
      response_format: 'b64_json',
      seed: 12,
      guidance_scale: 3,
    } as OpenAI.ImageGenerateParamsNonStreaming & {
      seed: number;
      guidance_scale: number;
    })) as OpenAI.ImagesResponse;
    expect(Buffer.from(res.data![0]!.b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('images.edit with one file and with several', async () => {
    const png = await pngBytes(sim, 800, 600);
    const one = (await client.images.edit({
      model: 'qwen-image-edit',
      image: await toFile(png, 'room.png', { type: 'image/png' }),
      prompt: 'paint the walls green',
    })) as OpenAI.ImagesResponse;
    expect(one.data).toHaveLength(1);
    const several = (await client.images.edit({
      model: 'qwen-image-edit',
      image: [
        await toFile(png, 'a.png', { type: 'image/png' }),
        await toFile(png, 'b.png', { type: 'image/png' }),
      ],
      prompt: 'put the person of the first photo in the second',
      n: 2,
    })) as OpenAI.ImagesResponse;
    expect(several.data).toHaveLength(2);
    const stats = await sim.stats();
    expect(stats.image_edit.calls).toBeGreaterThanOrEqual(3);
  });

  it('models.list and models.retrieve', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'seedream-4.5',
        'seedream-4.0',
        'seedream-3.0',
        'qwen-image-edit',
        'wan2.6-i2v-flash-5s-720p',
      ]),
    );
    expect(ids).toHaveLength(14);
    const m = await client.models.retrieve('qwen-image-edit');
    expect(m).toMatchObject({ id: 'qwen-image-edit', object: 'model', owned_by: 'mediagate' });
    await expect(client.models.retrieve('dall-e-3')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('maps a wrong size to BadRequestError stating the allowed range, and 402 to an APIError', async () => {
    const err = await client.images
      .generate({ model: 'seedream-4.5', prompt: 'x', size: '1024x1024' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toMatch(/3686400 to 16777216 pixels/);
    const { key } = await api.account(0.01);
    const poor = new OpenAI({ apiKey: key, baseURL: `${api.url}/v1`, maxRetries: 0 });
    const quota = await poor.images.generate({ model: 'seedream-4.5', prompt: 'x' }).catch((e: unknown) => e);
    expect(quota).toBeInstanceOf(OpenAI.APIError);
    expect((quota as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect((quota as InstanceType<typeof OpenAI.APIError>).code).toBe('insufficient_quota');
  });
});
