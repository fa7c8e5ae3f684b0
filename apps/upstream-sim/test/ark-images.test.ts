import { ARK_PATH, CONTROL_TOKEN, call, control, pngDataUrl, type RunningSim, startSim } from './helpers';

const M45 = 'doubao-seedream-4-5-251128';
const M40 = 'doubao-seedream-4-0-250828';
const M30 = 'doubao-seedream-3-0-t2i-250415';
const IMG = 'https://example.com/ref.jpg';

const generate = (sim: RunningSim, body: Record<string, unknown>, key?: string | null) =>
  call(sim.base, 'POST', ARK_PATH, { body: { prompt: 'a lighthouse at dawn', ...body }, key });

function pngSize(buf: Buffer): { width: number; height: number } {
  expect(buf.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(buf.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('Ark images: success shape and sizes', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim();
  });
  afterAll(() => sim.close());

  it('answers {model, created, data: [{url, size}], usage} with a served image', async () => {
    const res = await generate(sim, { model: M40 });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^02\d+/);
    expect(res.body).toEqual({
      model: M40,
      created: expect.any(Number),
      data: [{ url: expect.stringMatching(/-2048x2048\.png$/), size: '2048x2048' }],
      usage: { generated_images: 1, output_tokens: 16384, total_tokens: 16384 },
    });
    expect(Math.abs(res.body.created - Date.now() / 1000)).toBeLessThan(5);
    const img = await fetch(res.body.data[0].url);
    expect(pngSize(Buffer.from(await img.arrayBuffer()))).toEqual({ width: 2048, height: 2048 });
  });

  it.each([
    [M45, undefined, '2048x2048'],
    [M45, '2K', '2048x2048'],
    [M45, '4K', '4096x4096'],
    [M45, '2560x1440', '2560x1440'],
    [M45, '4096x4096', '4096x4096'],
    [M40, '1K', '1024x1024'],
    [M40, '2K', '2048x2048'],
    [M40, '4K', '4096x4096'],
    [M40, '1280x720', '1280x720'],
    [M40, '3840x240', '3840x240'],
    [M30, undefined, '1024x1024'],
    [M30, '512x512', '512x512'],
    [M30, '2048x2048', '2048x2048'],
    [M30, '768x1344', '768x1344'],
  ])('%s with size %s gives %s', async (model, size, expected) => {
    const res = await generate(sim, size === undefined ? { model } : { model, size });
    expect(res.status).toBe(200);
    expect(res.body.data[0].size).toBe(expected);
    const [w, h] = expected.split('x').map(Number) as [number, number];
    expect(res.body.usage.output_tokens).toBe(Math.floor((w * h) / 256));
  });

  it.each([
    [M45, '1K'],
    [M45, '1920x1080'],
    [M45, '4097x4096'],
    [M40, '1279x720'],
    [M40, '4096x240'],
    [M40, '2048*2048'],
    [M40, '2k'],
    [M40, 2048],
    [M30, '2K'],
    [M30, '511x1024'],
    [M30, '2049x1024'],
  ])('%s refuses size %s with 400 InvalidParameter (param size)', async (model, size) => {
    const res = await generate(sim, { model, size });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'InvalidParameter',
        message: expect.stringMatching(/size.*Request id: 02/),
        param: 'size',
        type: 'BadRequest',
      },
    });
  });

  it('accepts ids without the doubao- prefix and echoes the id it was sent', async () => {
    for (const model of ['seedream-4-5-251128', 'seedream-4-0-250828', 'seedream-3-0-t2i-250415']) {
      const res = await generate(sim, { model });
      expect(res.status).toBe(200);
      expect(res.body.model).toBe(model);
    }
  });

  it('answers b64_json with the same PNG, base64-encoded', async () => {
    const res = await generate(sim, { model: M40, size: '1280x720', response_format: 'b64_json' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ b64_json: expect.any(String), size: '1280x720' }]);
    expect(pngSize(Buffer.from(res.body.data[0].b64_json, 'base64'))).toEqual({ width: 1280, height: 720 });
  });

  it('takes 3.0 seed and guidance_scale, and 4.x reference images (URL, data URL, 1-14)', async () => {
    expect(
      (await generate(sim, { model: M30, seed: -1, guidance_scale: 2.5, watermark: false })).status,
    ).toBe(200);
    expect((await generate(sim, { model: M30, seed: 2147483647, guidance_scale: 10 })).status).toBe(200);
    expect((await generate(sim, { model: M45, image: IMG })).status).toBe(200);
    expect((await generate(sim, { model: M40, image: [IMG, pngDataUrl(1024, 768)] })).status).toBe(200);
    expect((await generate(sim, { model: M40, image: Array(14).fill(IMG) })).status).toBe(200);
  });
});

describe('Ark images: sequential generation', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim();
  });
  afterAll(() => sim.close());

  it('returns max_images items with sequential auto', async () => {
    const res = await generate(sim, {
      model: M45,
      sequential_image_generation: 'auto',
      sequential_image_generation_options: { max_images: 4 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(4);
    expect(new Set(res.body.data.map((d: { url: string }) => d.url)).size).toBe(4);
    expect(res.body.usage).toEqual({
      generated_images: 4,
      output_tokens: 4 * 16384,
      total_tokens: 4 * 16384,
    });
  });

  it('defaults max_images to 15 and keeps input + output within 15', async () => {
    const auto = await generate(sim, { model: M40, size: '1K', sequential_image_generation: 'auto' });
    expect(auto.body.data).toHaveLength(15);
    const withInputs = await generate(sim, {
      model: M40,
      size: '1K',
      image: Array(10).fill(IMG),
      sequential_image_generation: 'auto',
      sequential_image_generation_options: { max_images: 15 },
    });
    expect(withInputs.status).toBe(200);
    expect(withInputs.body.data).toHaveLength(5);
    expect(withInputs.body.usage.generated_images).toBe(5);
  });

  it('returns one image when sequential generation is disabled', async () => {
    const res = await generate(sim, {
      model: M40,
      sequential_image_generation: 'disabled',
      sequential_image_generation_options: { max_images: 5 },
    });
    expect(res.body.data).toHaveLength(1);
  });
});

describe('Ark images: validation and auth', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim();
  });
  afterAll(() => sim.close());

  it.each([
    ['no prompt', { model: M40, prompt: undefined }, 'MissingParameter', 'prompt'],
    ['an empty prompt', { model: M40, prompt: '' }, 'MissingParameter', 'prompt'],
    ['a non-string prompt', { model: M40, prompt: 5 }, 'InvalidParameter', 'prompt'],
    ['no model', {}, 'MissingParameter', 'model'],
    ['an image for 3.0', { model: M30, image: IMG }, 'InvalidParameter', 'image'],
    ['15 images', { model: M40, image: Array(15).fill(IMG) }, 'InvalidParameter', 'image'],
    ['an empty image list', { model: M40, image: [] }, 'InvalidParameter', 'image'],
    ['a relative image URL', { model: M40, image: '/a.png' }, 'InvalidParameter', 'image'],
    ['an image with ratio 20:1', { model: M40, image: pngDataUrl(2000, 100) }, 'InvalidParameter', 'image'],
    [
      'sequential on 3.0',
      { model: M30, sequential_image_generation: 'disabled' },
      'InvalidParameter',
      'sequential_image_generation',
    ],
    [
      'sequential options on 3.0',
      { model: M30, sequential_image_generation_options: { max_images: 2 } },
      'InvalidParameter',
      'sequential_image_generation_options',
    ],
    [
      'an unknown sequential mode',
      { model: M40, sequential_image_generation: 'on' },
      'InvalidParameter',
      'sequential_image_generation',
    ],
    [
      'max_images 0',
      {
        model: M40,
        sequential_image_generation: 'auto',
        sequential_image_generation_options: { max_images: 0 },
      },
      'InvalidParameter',
      'sequential_image_generation_options.max_images',
    ],
    [
      'max_images 16',
      {
        model: M40,
        sequential_image_generation: 'auto',
        sequential_image_generation_options: { max_images: 16 },
      },
      'InvalidParameter',
      'sequential_image_generation_options.max_images',
    ],
    ['response_format png', { model: M40, response_format: 'png' }, 'InvalidParameter', 'response_format'],
    ['a string watermark', { model: M40, watermark: 'false' }, 'InvalidParameter', 'watermark'],
    ['seed on 4.0', { model: M40, seed: 1 }, 'InvalidParameter', 'seed'],
    ['seed on 4.5', { model: M45, seed: 1 }, 'InvalidParameter', 'seed'],
    ['a fractional seed on 3.0', { model: M30, seed: 1.5 }, 'InvalidParameter', 'seed'],
    ['seed -2 on 3.0', { model: M30, seed: -2 }, 'InvalidParameter', 'seed'],
    ['guidance_scale on 4.5', { model: M45, guidance_scale: 3 }, 'InvalidParameter', 'guidance_scale'],
    ['guidance_scale 0.5 on 3.0', { model: M30, guidance_scale: 0.5 }, 'InvalidParameter', 'guidance_scale'],
    ['guidance_scale 11 on 3.0', { model: M30, guidance_scale: 11 }, 'InvalidParameter', 'guidance_scale'],
    ['streaming', { model: M40, stream: true }, 'InvalidParameter', 'stream'],
  ])('rejects %s with 400 %s', async (_what, body, code, param) => {
    const res = await generate(sim, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { code, message: expect.stringMatching(/Request id: 02\w+$/), param, type: 'BadRequest' },
    });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers an unknown model with 404 InvalidEndpointOrModel.NotFound', async () => {
    const res = await generate(sim, { model: 'doubao-seedream-5-0' });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'InvalidEndpointOrModel.NotFound', type: 'NotFound' });
  });

  it('answers malformed JSON in the Ark envelope', async () => {
    const res = await call(sim.base, 'POST', ARK_PATH, { body: '{"model": ' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'InvalidParameter', type: 'BadRequest', param: '' });
  });

  it('needs a key (401 AuthenticationError, type Unauthorized)', async () => {
    const res = await generate(sim, { model: M40 }, null);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'AuthenticationError', type: 'Unauthorized' });
  });
});

describe('Ark images: item failures, RPM and counters', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_ARK_RPM: '3' });
  });
  afterAll(() => sim.close());
  beforeEach(() => control(sim.base, '/reset'));

  const batch = (n: number) =>
    generate(sim, {
      model: M40,
      size: '1K',
      sequential_image_generation: 'auto',
      sequential_image_generation_options: { max_images: n },
    });

  it('fails the planned number of items of the next batch, billing only the generated ones', async () => {
    const planned = await control(sim.base, '/ark-item-failures', { count: 2 });
    expect(planned.body).toEqual({ pending: 2 });
    const res = await batch(4);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(4);
    const failed = res.body.data.filter((d: { error?: unknown }) => d.error);
    expect(failed).toEqual([
      { error: { code: 'OutputImageSensitiveContentDetected', message: expect.any(String) } },
      { error: { code: 'OutputImageSensitiveContentDetected', message: expect.any(String) } },
    ]);
    expect(res.body.usage).toEqual({ generated_images: 2, output_tokens: 2 * 4096, total_tokens: 2 * 4096 });
    expect((await batch(2)).body.usage.generated_images).toBe(2);
    const stats = await call(sim.base, 'GET', '/_control/stats', { key: CONTROL_TOKEN });
    expect(stats.body.ark_images).toEqual({ calls: 2, images: 4, failed_items: 2, rejected: 0 });
  });

  it('carries failures over when a batch is smaller than the plan', async () => {
    await control(sim.base, '/ark-item-failures', { count: 3 });
    const first = await batch(2);
    expect(first.body.usage.generated_images).toBe(0);
    expect(first.body.data.every((d: { error?: unknown }) => d.error)).toBe(true);
    expect((await call(sim.base, 'GET', '/_control/ark-item-failures', { key: CONTROL_TOKEN })).body).toEqual(
      {
        pending: 1,
      },
    );
  });

  it('answers a single-image request whose image fails with 400 OutputImageSensitiveContentDetected', async () => {
    await control(sim.base, '/ark-item-failures', { count: 1 });
    const res = await generate(sim, { model: M30 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'OutputImageSensitiveContentDetected', type: 'BadRequest' });
    expect((await generate(sim, { model: M30 })).status).toBe(200);
  });

  it('limits requests per minute per key with 429 RateLimitExceeded.EndpointRPMExceeded', async () => {
    for (let i = 0; i < 3; i++) expect((await generate(sim, { model: M30 })).status).toBe(200);
    const res = await generate(sim, { model: M30 });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({
      code: 'RateLimitExceeded.EndpointRPMExceeded',
      type: 'TooManyRequests',
    });
    expect((await generate(sim, { model: M30 }, 'sk-other')).status).toBe(200);
    await control(sim.base, '/limits', { arkRpm: 0 });
    expect((await generate(sim, { model: M30 })).status).toBe(200);
  });
});
