import OpenAI, { toFile } from 'openai';
import { type Stack, startStack } from './stack';

// Images through the real API process, wired from its environment (ARK_BASE_URL and
// DASHSCOPE_BASE_URL point at the simulator): the default channels, catalog and charges.
let stack: Stack;
let client: OpenAI;
let key: string;
beforeAll(async () => {
  stack = await startStack({ videoWorkers: 0, reconciler: false });
  key = stack.newKey(5);
  client = new OpenAI({ apiKey: key, baseURL: `${stack.apiUrl}/v1`, maxRetries: 0 });
});
afterAll(() => stack?.stop());

describe('images with the official openai client against the real processes', () => {
  it('lists the models, generates a batch and edits an uploaded image', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(
      expect.arrayContaining(['seedream-4.5', 'qwen-image-edit', 'wan2.5-i2v-flash-5s-720p']),
    );

    const batch = await client.images.generate({
      model: 'seedream-4.5',
      prompt: 'two foxes',
      n: 2,
      size: '2K' as never,
    });
    expect(batch.data).toHaveLength(2);
    expect(batch.data![0]!.url).toMatch(new RegExp(`^${stack.simUrl}/media/images/.+-2048x2048\\.png$`));

    const png = Buffer.from(await (await fetch(batch.data![0]!.url!)).arrayBuffer());
    const edited = (await client.images.edit({
      model: 'qwen-image-edit',
      image: await toFile(png, 'fox.png', { type: 'image/png' }),
      prompt: 'give the fox a scarf',
      response_format: 'b64_json',
    })) as OpenAI.ImagesResponse;
    expect(Buffer.from(edited.data![0]!.b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG');

    // 5 USD - 2 x 0.04 - 0.045
    const { rows } = await stack.pool.query(
      'select balance_micro_usd::int8 as b from accounts order by created_at desc limit 1',
    );
    expect(Number(rows[0].b)).toBe(5_000_000 - 80_000 - 45_000);
  });

  it('answers a vendor outage with a 500 server_error and refunds it', async () => {
    const balance = async () =>
      Number((await stack.pool.query('select sum(balance_micro_usd)::int8 as b from accounts')).rows[0].b);
    const before = await balance();
    await stack.sim('POST', '/faults', { api: 'ark_images', status: 503, count: 1 });
    const res = await stack.api('POST', '/v1/images/generations', key, {
      model: 'seedream-3.0',
      prompt: 'x',
    });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('server_error');
    expect(await balance()).toBe(before);
  });
});
