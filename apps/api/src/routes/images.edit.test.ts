import { findLedgerMismatches } from '@mediagate/shared/billing';
import type { RunningSim } from '@mediagate/shared/testing';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, IMG, type TestApi } from '../../test/harness';
import { balanceOf, pngBytes, startImagesApi } from '../../test/images';

let api: TestApi;
let sim: RunningSim;
let close: () => Promise<void>;
let key: string;
let accountId: string;
let png: Buffer;

beforeAll(async () => {
  const started = await startImagesApi();
  ({ api, close } = started);
  sim = started.sims[0]!;
  ({ key, accountId } = await api.account(20));
  png = await pngBytes(sim, 640, 480);
});
afterAll(() => close());
beforeEach(() => sim.control('POST', '/reset'));
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

/** A form field: text, or a file (`bytes` null = the 640x480 PNG, known only once the simulator runs). */
type Part = [name: string, value: string | { bytes: Buffer | null; filename: string; type?: string }];
const form = (parts: Part[]) => {
  const fd = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === 'string') fd.append(name, value);
    else fd.append(name, new Blob([value.bytes ?? png], { type: value.type ?? 'image/png' }), value.filename);
  }
  return fd;
};
const edit = (parts: Part[]) => call(api, 'POST', '/v1/images/edits', { key, body: form(parts) });
const file = (bytes: Buffer | null = null, filename = 'photo.png', type?: string) => ({
  bytes,
  filename,
  type,
});
const upstreamCalls = async () => {
  const s = await sim.stats();
  return s.ark_images.calls + s.ark_images.rejected + s.image_edit.calls + s.image_edit.rejected;
};

describe('POST /v1/images/edits (multipart, as the openai client sends it)', () => {
  it('edits one uploaded file with the default edit model', async () => {
    const before = await balanceOf(api, accountId);
    const res = await edit([
      ['image', file()],
      ['prompt', 'make the sky purple'],
    ]);
    const out = (await expectContract(res, contractFor('post /v1/images/edits'), 200)) as {
      data: Array<{ url: string }>;
      requested: number;
      delivered: number;
    };
    expect(out).toMatchObject({ requested: 1, delivered: 1 });
    expect(out.data[0]!.url).toMatch(/-1024x1024\.png$/);
    expect((await sim.stats()).image_edit).toMatchObject({ calls: 1, rejected: 0 });
    expect(before - (await balanceOf(api, accountId))).toBe(45_000);
  });

  it('fuses several files (image[]) and reads numbers and booleans from the form', async () => {
    const res = await edit([
      ['model', 'qwen-image-edit'],
      ['image[]', file()],
      ['image[]', file(null, 'style.jpg')],
      ['image[]', file()],
      ['prompt', 'the first photo in the style of the second'],
      ['n', '2'],
      ['seed', '5'],
      ['watermark', 'false'],
      ['negative_prompt', 'text'],
      ['response_format', 'b64_json'],
    ]);
    const out = (await expectContract(res, contractFor('post /v1/images/edits'), 200)) as {
      data: Array<{ b64_json: string }>;
    };
    expect(out.data).toHaveLength(2);
    expect(Buffer.from(out.data[0]!.b64_json, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect((await sim.stats()).image_edit.calls).toBe(2);
  });

  it('edits with a Seedream 4.x model (image-to-image) and its sizes', async () => {
    const res = await edit([
      ['model', 'seedream-4.5'],
      ['image[]', file()],
      ['image[]', file()],
      ['prompt', 'blend these'],
      ['size', '2K'],
      ['n', '2'],
    ]);
    expect(
      ((await expectContract(res, contractFor('post /v1/images/edits'), 200)) as { data: unknown[] }).data,
    ).toHaveLength(2);
    expect((await sim.stats()).ark_images).toMatchObject({ calls: 1, images: 2 });
  });

  it('takes JSON with image URLs too', async () => {
    const res = await call(api, 'POST', '/v1/images/edits', {
      key,
      json: { model: 'qwen-image-edit', image: [IMG], prompt: 'add a hat' },
    });
    expect(res.status).toBe(200);
  });

  it.each<[string, Part[], number, string, string, RegExp]>([
    [
      'a text file',
      [
        ['image', file(Buffer.from('just some text, not an image'), 'notes.txt', 'text/plain')],
        ['prompt', 'x'],
      ],
      400,
      'invalid_request',
      'image',
      /not a JPEG, PNG, WebP or BMP image/,
    ],
    [
      'a PDF named .png',
      [
        ['image', file(Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj'), 'fake.png')],
        ['prompt', 'x'],
      ],
      400,
      'invalid_request',
      'image',
      /not a JPEG/,
    ],
    [
      'four images for a 1-3 image model',
      [
        ['image[]', file()],
        ['image[]', file()],
        ['image[]', file()],
        ['image[]', file()],
        ['prompt', 'x'],
      ],
      400,
      'invalid_request',
      'image',
      /takes 1 to 3 images; got 4/,
    ],
    [
      'a mask',
      [
        ['image', file()],
        ['mask', file()],
        ['prompt', 'x'],
      ],
      400,
      'invalid_request',
      'mask',
      /mask/,
    ],
    [
      'files and URLs at once',
      [
        ['image[]', file()],
        ['image', IMG],
        ['prompt', 'x'],
      ],
      400,
      'invalid_request',
      'image',
      /not both/,
    ],
    ['no image', [['prompt', 'x']], 400, 'invalid_request', 'image', /Missing required field 'image'/],
    [
      'a text-only model',
      [
        ['model', 'seedream-3.0'],
        ['image', file()],
        ['prompt', 'x'],
      ],
      400,
      'invalid_request',
      'model',
      /cannot edit/,
    ],
    [
      'an unknown field',
      [
        ['image', file()],
        ['prompt', 'x'],
        ['quality', 'high'],
      ],
      400,
      'invalid_request',
      'quality',
      /Unrecognized parameter 'quality'/,
    ],
    [
      'a non-numeric n',
      [
        ['image', file()],
        ['prompt', 'x'],
        ['n', 'two'],
      ],
      400,
      'invalid_request',
      'n',
      /positive integer/,
    ],
    [
      'a file in an unknown field',
      [
        ['photo', file()],
        ['prompt', 'x'],
      ],
      400,
      'invalid_request',
      'photo',
      /Unexpected file field/,
    ],
    [
      'an unknown model',
      [
        ['model', 'gpt-image-1'],
        ['image', file()],
        ['prompt', 'x'],
      ],
      404,
      'model_not_found',
      'model',
      /gpt-image-1/,
    ],
    [
      'a NUL character in the prompt (as a video prompt is refused)',
      [
        ['image', file()],
        ['prompt', 'make it\u0000 blue'],
      ],
      400,
      'invalid_request',
      'prompt',
      /NUL character/,
    ],
    [
      'a NUL character in negative_prompt',
      [
        ['image', file()],
        ['prompt', 'make it blue'],
        ['negative_prompt', '\u0000'],
      ],
      400,
      'invalid_request',
      'negative_prompt',
      /NUL character/,
    ],
  ])('refuses %s', async (_name, parts, status, code, param, message) => {
    const before = await balanceOf(api, accountId);
    const err = await expectError(await edit(parts), status, code);
    expect(err.param).toBe(param);
    expect(err.message).toMatch(message);
    expect(await upstreamCalls()).toBe(0);
    expect(await balanceOf(api, accountId)).toBe(before);
  });

  it('refuses a too small image and a file over 10 MB', async () => {
    const small = await pngBytes(sim, 300, 300);
    const err = await expectError(
      await edit([
        ['image', file(small)],
        ['prompt', 'x'],
      ]),
      400,
      'invalid_request',
    );
    expect(err.message).toMatch(/300x300: each side must be at least 384 px/);
    const huge = Buffer.concat([png, Buffer.alloc(10 * 1024 * 1024)]);
    await expectError(
      await edit([
        ['image', file(huge)],
        ['prompt', 'x'],
      ]),
      413,
      'request_too_large',
    );
    expect(await upstreamCalls()).toBe(0);
  });
});
