import { CONTROL_TOKEN, call, EDIT_PATH, pngDataUrl, type RunningSim, startSim } from './helpers';

const IMG = 'https://example.com/in.png';

function editBody(content: unknown[], patch: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'qwen-image-edit', input: { messages: [{ role: 'user', content }] }, ...patch };
}

describe('DashScope image edit (qwen-image-edit)', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim();
  });
  afterAll(() => sim.close());

  it('returns one edited image the sim serves, with usage and a request id', async () => {
    const res = await call(sim.base, 'POST', EDIT_PATH, {
      body: editBody([{ image: IMG }, { text: 'make it blue' }]),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      output: {
        choices: [
          {
            finish_reason: 'stop',
            message: {
              role: 'assistant',
              content: [{ image: expect.stringMatching(/\/media\/images\/.+-1024x1024\.png$/) }],
            },
          },
        ],
      },
      usage: { image_count: 1, width: 1024, height: 1024 },
      request_id: expect.any(String),
    });
    const url: string = res.body.output.choices[0].message.content[0].image;
    expect(url.startsWith(sim.base)).toBe(true);
    const img = await fetch(url);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
  });

  it.each([
    ['two images (fusion)', [{ image: IMG }, { image: IMG }, { text: 'merge' }]],
    [
      'three images, text first',
      [{ text: 'style transfer' }, { image: IMG }, { image: IMG }, { image: IMG }],
    ],
    ['a data URL of 1024x768', [{ image: pngDataUrl(1024, 768) }, { text: 'edit' }]],
  ])('accepts %s', async (_what, content) => {
    const res = await call(sim.base, 'POST', EDIT_PATH, {
      body: editBody(content, { parameters: { negative_prompt: 'blur', watermark: false, seed: 7 } }),
    });
    expect(res.status).toBe(200);
  });

  it.each([
    [
      'another model',
      { ...editBody([{ image: IMG }, { text: 'x' }]), model: 'qwen-image' },
      'InvalidParameter',
    ],
    ['no model', { ...editBody([{ image: IMG }, { text: 'x' }]), model: undefined }, 'InvalidParameter'],
    ['no messages', { model: 'qwen-image-edit', input: {} }, 'InvalidParameter'],
    [
      'two messages',
      {
        model: 'qwen-image-edit',
        input: {
          messages: [
            { role: 'user', content: [] },
            { role: 'user', content: [] },
          ],
        },
      },
      'InvalidParameter',
    ],
    [
      'a system role',
      {
        model: 'qwen-image-edit',
        input: { messages: [{ role: 'system', content: [{ image: IMG }, { text: 'x' }] }] },
      },
      'InvalidParameter',
    ],
    ['no image', editBody([{ text: 'x' }]), 'InvalidParameter'],
    [
      'four images',
      editBody([{ image: IMG }, { image: IMG }, { image: IMG }, { image: IMG }, { text: 'x' }]),
      'InvalidParameter',
    ],
    ['no text', editBody([{ image: IMG }]), 'InvalidParameter'],
    ['two texts', editBody([{ image: IMG }, { text: 'a' }, { text: 'b' }]), 'InvalidParameter'],
    ['an empty text', editBody([{ image: IMG }, { text: '  ' }]), 'InvalidParameter'],
    ['an item with image and text', editBody([{ image: IMG, text: 'x' }]), 'InvalidParameter'],
    ['an invalid image URL', editBody([{ image: 'ftp://x/y.png' }, { text: 'x' }]), 'InvalidURL'],
    [
      'an image under 384 px',
      editBody([{ image: pngDataUrl(300, 1000) }, { text: 'x' }]),
      'InvalidParameter',
    ],
    [
      'an image over 3072 px',
      editBody([{ image: pngDataUrl(4000, 1000) }, { text: 'x' }]),
      'InvalidParameter',
    ],
    [
      'a bad seed',
      editBody([{ image: IMG }, { text: 'x' }], { parameters: { seed: -5 } }),
      'InvalidParameter',
    ],
    [
      'a bad watermark',
      editBody([{ image: IMG }, { text: 'x' }], { parameters: { watermark: 'no' } }),
      'InvalidParameter',
    ],
    [
      'a negative prompt over 500',
      editBody([{ image: IMG }, { text: 'x' }], { parameters: { negative_prompt: 'n'.repeat(501) } }),
      'InvalidParameter',
    ],
  ])('rejects %s with 400 %s', async (_what, body, code) => {
    const res = await call(sim.base, 'POST', EDIT_PATH, { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code, message: expect.any(String), request_id: expect.any(String) });
  });

  it('needs a key (401 InvalidApiKey)', async () => {
    const res = await call(sim.base, 'POST', EDIT_PATH, {
      body: editBody([{ image: IMG }, { text: 'x' }]),
      key: null,
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('InvalidApiKey');
  });

  it('counts calls, images and rejections', async () => {
    await call(sim.base, 'POST', '/_control/reset', { key: CONTROL_TOKEN });
    await call(sim.base, 'POST', EDIT_PATH, { body: editBody([{ image: IMG }, { text: 'x' }]) });
    await call(sim.base, 'POST', EDIT_PATH, { body: editBody([{ text: 'x' }]) });
    await call(sim.base, 'POST', EDIT_PATH, { body: '{not json' });
    const stats = await call(sim.base, 'GET', '/_control/stats', { key: CONTROL_TOKEN });
    expect(stats.body.image_edit).toEqual({ calls: 1, images: 1, rejected: 2 });
  });
});
