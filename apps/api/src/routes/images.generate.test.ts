import { findLedgerMismatches } from '@mediagate/shared/billing';
import type { RunningSim } from '@mediagate/shared/testing';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, IMG, type TestApi } from '../../test/harness';
import { balanceOf, dataUrl, pngBytes, startImagesApi } from '../../test/images';

// biome-ignore lint/suspicious/noExplicitAny: tests read free-form JSON answers
type Json = Record<string, any>;

let api: TestApi;
let sim: RunningSim;
let close: () => Promise<void>;
let key: string;
let accountId: string;
let png512: string;
let png200: string;

beforeAll(async () => {
  // no real cool-down, so a vendor Retry-After in one test does not hold the channel for the next
  const started = await startImagesApi({ config: { UPSTREAM_BREAKER_COOLDOWN_MS: 1 } });
  ({ api, close } = started);
  sim = started.sims[0]!;
  ({ key, accountId } = await api.account(50));
  png512 = dataUrl(await pngBytes(sim, 512, 512));
  png200 = dataUrl(await pngBytes(sim, 200, 200));
});
afterAll(() => close());
beforeEach(() => sim.control('POST', '/reset'));
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const PRICE: Record<string, number> = {
  'seedream-4.5': 40_000,
  'seedream-4.0': 30_000,
  'seedream-3.0': 30_000,
  'qwen-image-edit': 45_000,
};
const generate = (json: unknown, k = key) => call(api, 'POST', '/v1/images/generations', { key: k, json });
const upstreamCalls = async () => {
  const s = await sim.stats();
  return s.ark_images.calls + s.ark_images.rejected + s.image_edit.calls + s.image_edit.rejected;
};
const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://example.com/ref-${i}.png`);

describe('POST /v1/images/generations: every model against the simulator', () => {
  it.each([
    ['seedream-4.5', {}, 1, '2048x2048'],
    ['seedream-4.5', { size: '2K' }, 1, '2048x2048'],
    ['seedream-4.5', { size: '4K', watermark: false }, 1, '4096x4096'],
    ['seedream-4.5', { size: '2560x1440' }, 1, '2560x1440'],
    ['seedream-4.5', { image: IMG, n: 3 }, 3, '2048x2048'],
    [
      'seedream-4.5',
      { sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 2 } },
      2,
      '2048x2048',
    ],
    ['seedream-4.5', { sequential_image_generation: 'disabled', size: 'auto' }, 1, '2048x2048'],
    ['seedream-4.0', { size: '1K' }, 1, '1024x1024'],
    ['seedream-4.0', { size: '1280x720' }, 1, '1280x720'],
    ['seedream-4.0', { size: '3840x240' }, 1, '3840x240'],
    ['seedream-4.0', { image: IMG, size: '1K' }, 1, '1024x1024'],
    [
      'seedream-4.0',
      { image: ['https://example.com/a.png', 'PNG512', 'PNG512'], size: '1K' },
      1,
      '1024x1024',
    ],
    ['seedream-4.0', { image: urls(14), size: '1K' }, 1, '1024x1024'],
    ['seedream-4.0', { n: 15, size: '1K' }, 15, '1024x1024'],
    ['seedream-3.0', {}, 1, '1024x1024'],
    ['seedream-3.0', { size: '512x512', seed: 42, guidance_scale: 2.5, watermark: false }, 1, '512x512'],
    ['seedream-3.0', { size: '2048x2048', seed: -1, guidance_scale: 10 }, 1, '2048x2048'],
    ['seedream-3.0', { n: 4, size: '768x1344' }, 4, '768x1344'],
    ['qwen-image-edit', { image: IMG }, 1, '1024x1024'],
    [
      'qwen-image-edit',
      { image: [IMG, 'PNG512'], negative_prompt: 'blurry', seed: 7, watermark: false, size: 'auto' },
      1,
      '1024x1024',
    ],
    ['qwen-image-edit', { image: [IMG, 'PNG512', IMG], n: 2 }, 2, '1024x1024'],
  ])('%s with %j makes %i image(s) of %s, charged per image', async (model, patch, n, size) => {
    const body = JSON.parse(
      JSON.stringify({ model, prompt: 'a lighthouse at dawn', ...patch }).replace(
        /"PNG512"/g,
        JSON.stringify(png512),
      ),
    );
    const before = await balanceOf(api, accountId);
    const res = await generate(body);
    const out = (await res.json()) as { data: Array<{ url: string }>; requested: number; delivered: number };
    expect(res.status).toBe(200);
    expect(out).toMatchObject({ created: expect.any(Number), requested: n, delivered: n });
    expect(out.data).toHaveLength(n);
    for (const d of out.data) expect(d.url).toMatch(new RegExp(`^${sim.url}/media/images/.+-${size}\\.png$`));
    expect(before - (await balanceOf(api, accountId))).toBe(n * PRICE[model]!);
    const stats = await sim.stats();
    if (model === 'qwen-image-edit') expect(stats.image_edit).toMatchObject({ calls: n, rejected: 0 });
    else
      expect(stats.ark_images).toMatchObject({
        calls: model === 'seedream-3.0' ? n : 1,
        images: n,
        rejected: 0,
      });
  });

  it('answers b64_json with the image bytes (Seedream passes it through, the edit model is fetched)', async () => {
    for (const [model, extra, side] of [
      ['seedream-3.0', { size: '512x512' }, 512],
      ['qwen-image-edit', { image: IMG }, 1024],
    ] as const) {
      const res = await generate({ model, prompt: 'a red kite', response_format: 'b64_json', ...extra });
      const out = (await expectContract(res, contractFor('post /v1/images/generations'), 200)) as {
        data: Array<{ b64_json: string; url?: string }>;
      };
      expect(out.data[0]).not.toHaveProperty('url');
      const bytes = Buffer.from(out.data[0]!.b64_json, 'base64');
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([side, side]);
    }
  });
});

describe('POST /v1/images/generations: parameter rules', () => {
  it.each([
    ['seedream-4.5', { quality: 'hd' }, 'quality', /Unrecognized parameter 'quality' for model seedream-4.5/],
    [
      'seedream-4.5',
      { size: '1024x1024' },
      'size',
      /2K, 4K, or WIDTHxHEIGHT with 3686400 to 16777216 pixels/,
    ],
    ['seedream-4.5', { size: '1K' }, 'size', /not allowed for seedream-4.5/],
    ['seedream-4.5', { size: '8192x4096' }, 'size', /16777216/],
    ['seedream-4.0', { size: '800x800' }, 'size', /1K, 2K, 4K, or WIDTHxHEIGHT with 921600 to/],
    ['seedream-4.0', { size: '4800x200' }, 'size', /aspect ratio within 1:16 and 16:1/],
    ['seedream-4.0', { size: 'large' }, 'size', /not allowed/],
    ['seedream-4.0', { seed: 1 }, 'seed', /Unrecognized parameter 'seed'/],
    ['seedream-4.0', { guidance_scale: 3 }, 'guidance_scale', /Unrecognized/],
    ['seedream-4.0', { image: urls(15) }, 'image', /takes 0 to 14 images; got 15/],
    ['seedream-4.0', { image: urls(2), n: 14 }, 'n', /at most 15, and this request has 2 reference images/],
    ['seedream-4.0', { n: 16 }, 'n', /n is 16/],
    ['seedream-4.0', { n: 2, sequential_image_generation: 'disabled' }, 'n', /needs sequential/],
    ['seedream-4.0', { n: 2, sequential_image_generation_options: { max_images: 3 } }, 'n', /disagree/],
    [
      'seedream-4.0',
      { sequential_image_generation: 'always' },
      'sequential_image_generation',
      /auto or disabled/,
    ],
    [
      'seedream-4.0',
      { sequential_image_generation_options: { max_images: 2, order: 1 } },
      'sequential_image_generation_options',
      /order/,
    ],
    ['seedream-4.0', { watermark: 'yes' }, 'watermark', /true or false/],
    ['seedream-4.0', { image: 'ftp://example.com/a.png' }, 'image', /http\(s\) URL or a base64 data URL/],
    [
      'seedream-4.0',
      { image: [IMG, 'data:image/png;base64,aGVsbG8gd29ybGQgaGVsbG8gd29ybGQh'] },
      'image[1]',
      /not a JPEG/,
    ],
    ['seedream-3.0', { image: IMG }, 'image', /text only/],
    ['seedream-3.0', { size: '2K' }, 'size', /WIDTHxHEIGHT with each side from 512 to 2048 px/],
    ['seedream-3.0', { size: '4096x4096' }, 'size', /not allowed/],
    ['seedream-3.0', { size: '256x256' }, 'size', /not allowed/],
    ['seedream-3.0', { seed: -2 }, 'seed', /integer from -1 to 2147483647/],
    ['seedream-3.0', { seed: 1.5 }, 'seed', /integer/],
    ['seedream-3.0', { guidance_scale: 11 }, 'guidance_scale', /number from 1 to 10/],
    ['seedream-3.0', { guidance_scale: 0.5 }, 'guidance_scale', /from 1 to 10/],
    ['seedream-3.0', { n: 5 }, 'n', /at most 4 images/],
    ['seedream-3.0', { sequential_image_generation: 'auto' }, 'sequential_image_generation', /Unrecognized/],
    ['qwen-image-edit', {}, 'image', /takes 1 to 3 images; got 0/],
    ['qwen-image-edit', { image: urls(4) }, 'image', /got 4/],
    ['qwen-image-edit', { image: IMG, size: '1024x1024' }, 'size', /does not take size/],
    ['qwen-image-edit', { image: IMG, negative_prompt: 'x'.repeat(501) }, 'negative_prompt', /at most 500/],
    ['qwen-image-edit', { image: IMG, seed: -1 }, 'seed', /from 0 to 2147483647/],
    ['qwen-image-edit', { image: IMG, guidance_scale: 2 }, 'guidance_scale', /Unrecognized/],
    ['qwen-image-edit', { image: 'PNG200' }, 'image', /200x200: each side must be at least 384 px/],
    ['qwen-image-edit', { image: IMG, n: 5 }, 'n', /at most 4/],
    ['qwen-image-edit', { image: IMG, prompt: 'x'.repeat(801) }, 'prompt', /at most 800 characters/],
    ['seedream-4.0', { n: 0 }, 'n', /positive integer/],
    ['seedream-4.0', { n: '2' }, 'n', /positive integer/],
    ['seedream-4.0', { response_format: 'png' }, 'response_format', /url or b64_json/],
    ['seedream-4.0', { stream: true }, 'stream', /not supported/],
    ['seedream-4.0', { prompt: '   ' }, 'prompt', /non-empty/],
    ['seedream-4.0', { prompt: undefined }, 'prompt', /Missing required field 'prompt'/],
    ['seedream-4.0', { prompt: 'x'.repeat(4001) }, 'prompt', /at most 4000/],
    // a NUL is refused as in a video prompt (there Postgres refuses it), not sent to the vendor
    ['seedream-4.5', { prompt: 'a cat\u0000' }, 'prompt', /NUL character/],
    ['seedream-4.0', { prompt: '\u0000a cat' }, 'prompt', /NUL character/],
    ['seedream-3.0', { prompt: 'a\u0000cat' }, 'prompt', /NUL character/],
    ['qwen-image-edit', { image: IMG, prompt: 'a\u0000cat' }, 'prompt', /NUL character/],
    ['qwen-image-edit', { image: IMG, negative_prompt: 'blur\u0000' }, 'negative_prompt', /NUL character/],
  ])('%s with %j: 400 naming %s', async (model, patch, param, message) => {
    const body = JSON.parse(
      JSON.stringify({ model, prompt: 'a cat', ...patch }).replace(/"PNG200"/g, JSON.stringify(png200)),
    );
    const before = await balanceOf(api, accountId);
    const err = await expectError(await generate(body), 400, 'invalid_request');
    expect(err.param).toBe(param);
    expect(err.message).toMatch(message);
    expect(err.type).toBe('invalid_request_error');
    expect(await upstreamCalls()).toBe(0);
    expect(await balanceOf(api, accountId)).toBe(before);
  });

  it('refuses reference image URLs of non-public addresses (the vendor would fetch them for us)', async () => {
    const one = await expectError(
      await generate({ model: 'seedream-4.0', prompt: 'x', image: 'http://127.0.0.1:8080/a.png' }),
      400,
      'invalid_request',
    );
    expect(one).toMatchObject({ param: 'image', message: expect.stringMatching(/public address/) });
    const many = await expectError(
      await generate({ model: 'qwen-image-edit', prompt: 'x', image: [IMG, 'http://10.1.2.3/b.png'] }),
      400,
      'invalid_request',
    );
    expect(many.param).toBe('image[1]');
    expect(await upstreamCalls()).toBe(0);
  });

  it('requires a model, knows which exist and sends video models elsewhere', async () => {
    expect((await expectError(await generate({ prompt: 'x' }), 400, 'invalid_request')).param).toBe('model');
    await expectError(await generate({ model: 'seedream-9', prompt: 'x' }), 404, 'model_not_found');
    const video = await expectError(
      await generate({ model: 'wan2.6-i2v-flash-5s-720p', prompt: 'x' }),
      400,
      'invalid_request',
    );
    expect(video.message).toMatch(/POST \/v1\/videos/);
    await expectError(await generate([1, 2]), 400, 'invalid_request');
    const text = await call(api, 'POST', '/v1/images/generations', {
      key,
      body: 'model=seedream-4.0',
      headers: { 'content-type': 'text/plain' },
    });
    await expectError(text, 415, 'unsupported_media_type');
    await expectError(
      await generate({ model: 'seedream-4.0', prompt: 'x' }, `sk-${'Q'.repeat(48)}`),
      401,
      'invalid_api_key',
    );
    expect(await upstreamCalls()).toBe(0);
  });

  it('answers 402 when the balance does not cover n images, and calls nothing', async () => {
    const poor = await api.account(0.05);
    await expectError(
      await generate({ model: 'seedream-4.0', prompt: 'x', n: 2 }, poor.key),
      402,
      'insufficient_quota',
    );
    expect(await upstreamCalls()).toBe(0);
    expect(await balanceOf(api, poor.accountId)).toBe(50_000);
    expect((await generate({ model: 'seedream-4.0', prompt: 'x' }, poor.key)).status).toBe(200);
    expect(await balanceOf(api, poor.accountId)).toBe(20_000);
  });
});

describe('POST /v1/images/generations: vendor errors', () => {
  it.each([
    [
      'ark_images',
      'seedream-4.0',
      400,
      'InputTextSensitiveContentDetected',
      'The input text may contain sensitive information.',
    ],
    [
      'image_edit',
      'qwen-image-edit',
      400,
      'DataInspectionFailed',
      'Input data may contain inappropriate content.',
    ],
  ])(
    'passes a vendor 400 (%s) on as 400 invalid_request with its message, and refunds',
    async (api_, model, status, code, message) => {
      await sim.fault({ api: api_, status, code, message, count: 1 });
      const before = await balanceOf(api, accountId);
      const err = await expectError(
        await generate({ model, prompt: 'x', image: model === 'qwen-image-edit' ? IMG : undefined }),
        400,
        'invalid_request',
      );
      expect(err.message).toContain(message);
      expect(await balanceOf(api, accountId)).toBe(before);
    },
  );

  it.each([401, 403])(
    'hides a vendor %i (a gateway key problem) behind a 500 server_error',
    async (status) => {
      await sim.fault({
        api: 'ark_images',
        status,
        code: 'AuthenticationError',
        message: 'key sk-ark-0 is invalid',
        count: 1,
      });
      const res = await generate({ model: 'seedream-4.0', prompt: 'x' });
      const text = await res.clone().text();
      const err = await expectError(res, 500, 'server_error');
      expect(err.message).toMatch(/fault of ours/);
      expect(text).not.toMatch(/sk-ark|AuthenticationError|invalid/);
    },
  );

  it('answers a vendor 429 on the only channel with 429 rate_limit_exceeded and Retry-After', async () => {
    await sim.fault({
      api: 'ark_images',
      status: 429,
      code: 'RateLimitExceeded.EndpointRPMExceeded',
      count: 1,
      retryAfterSeconds: 7,
    });
    const res = await generate({ model: 'seedream-4.0', prompt: 'x' });
    expect(res.headers.get('retry-after')).toBe('7');
    expect((await expectError(res, 429, 'rate_limit_exceeded')).type).toBe('rate_limit_error');
  });

  it('answers a vendor 5xx with 500 server_error, and refunds', async () => {
    const before = await balanceOf(api, accountId);
    await sim.fault({ api: 'image_edit', status: 503, count: 1 });
    await expectError(
      await generate({ model: 'qwen-image-edit', prompt: 'x', image: IMG }),
      500,
      'server_error',
    );
    expect(await balanceOf(api, accountId)).toBe(before);
  });
});

describe('partial batches', () => {
  it('returns exactly the delivered images of a group and refunds the others', async () => {
    await sim.control('POST', '/ark-item-failures', { count: 2 });
    const before = await balanceOf(api, accountId);
    const res = await generate({ model: 'seedream-4.0', prompt: 'four kites', n: 4, size: '1K' });
    const out = (await expectContract(res, contractFor('post /v1/images/generations'), 200)) as Json;
    expect(out).toMatchObject({ requested: 4, delivered: 2, usage: { generated_images: 2 } });
    expect(out.data).toHaveLength(2);
    expect(out.data.every((d: { url?: string }) => typeof d.url === 'string')).toBe(true);
    expect(out.errors).toEqual([
      { code: 'OutputImageSensitiveContentDetected', message: expect.any(String) },
      { code: 'OutputImageSensitiveContentDetected', message: expect.any(String) },
    ]);
    expect(before - (await balanceOf(api, accountId))).toBe(2 * 30_000);
    const { rows } = await api.database.pool.query(
      `select kind, amount_micro_usd::int as amount, ref from ledger_entries where account_id = $1 and kind in ('charge', 'refund') order by id desc limit 2`,
      [accountId],
    );
    expect(rows).toEqual([
      { kind: 'refund', amount: 60_000, ref: expect.stringMatching(/^img_/) },
      { kind: 'charge', amount: -120_000, ref: rows[0].ref },
    ]);
  });

  it('returns the images of the parallel calls that succeeded (3.0) and refunds the failed one', async () => {
    await sim.control('POST', '/ark-item-failures', { count: 1 });
    const before = await balanceOf(api, accountId);
    const res = await generate({ model: 'seedream-3.0', prompt: 'x', n: 3, size: '512x512' });
    const out = (await res.json()) as Json;
    expect(out).toMatchObject({ requested: 3, delivered: 2 });
    expect(out.data).toHaveLength(2);
    expect(out.errors).toEqual([
      { code: 'OutputImageSensitiveContentDetected', message: expect.any(String) },
    ]);
    expect(before - (await balanceOf(api, accountId))).toBe(2 * 30_000);
  });

  it('reports an upstream fault of one edit call as a server_error item', async () => {
    await sim.fault({ api: 'image_edit', status: 500, count: 1 });
    const out = (await (
      await generate({ model: 'qwen-image-edit', prompt: 'x', image: IMG, n: 3 })
    ).json()) as Json;
    expect(out).toMatchObject({ requested: 3, delivered: 2, errors: [{ code: 'server_error' }] });
  });

  it('answers 400 with the vendor reason when no image of a group came back, and refunds all', async () => {
    await sim.control('POST', '/ark-item-failures', { count: 2 });
    const before = await balanceOf(api, accountId);
    const err = await expectError(
      await generate({ model: 'seedream-4.5', prompt: 'x', n: 2 }),
      400,
      'invalid_request',
    );
    expect(err.message).toMatch(/sensitive/);
    expect(await balanceOf(api, accountId)).toBe(before);
  });
});
