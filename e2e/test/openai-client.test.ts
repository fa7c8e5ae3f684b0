import { waitFor } from '@mediagate/shared/testing';
import OpenAI from 'openai';
import { type Stack, startStack } from './stack';

let stack: Stack;
let client: OpenAI;
beforeAll(async () => {
  stack = await startStack();
  client = new OpenAI({ apiKey: stack.newKey(), baseURL: `${stack.apiUrl}/v1`, maxRetries: 0 });
});
afterAll(() => stack?.stop());

describe('the official openai client', () => {
  it('creates a video task (metadata as an extra body field) and retrieves it until it succeeds', async () => {
    const created = await client.videos.create({
      model: 'wan2.6-i2v-flash-5s-720p',
      prompt: 'a lighthouse at dusk, waves rolling in',
      metadata: {
        input: { img_url: 'https://example.com/lighthouse.png' },
        parameters: { duration: 5, audio: false, resolution: '720P' },
      },
    } as unknown as OpenAI.VideoCreateParams);
    const task = created as unknown as { id: string; task_id: string; status: string; metadata: any };
    expect(task.id).toMatch(/^task_/);
    expect(task.task_id).toBe(task.id);
    expect(task.status).toBe('pending');
    // the client sent a multipart form: numbers and booleans arrive typed
    expect(task.metadata.parameters).toEqual({ duration: 5, audio: false, resolution: '720P' });

    const done = await waitFor(
      async () => {
        const t = (await client.videos.retrieve(task.id)) as unknown as {
          status: string;
          video_url?: string;
        };
        return t.status === 'succeeded' || t.status === 'failed' ? t : null;
      },
      { what: 'the task to finish', timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(done.status).toBe('succeeded');
    expect(done.video_url).toMatch(/\/media\/task_\w+\/video\.mp4\?exp=\d+&sig=/);
  });

  it('maps a bad key to AuthenticationError and an unknown model to NotFoundError', async () => {
    const bad = new OpenAI({ apiKey: `sk-${'x'.repeat(48)}`, baseURL: `${stack.apiUrl}/v1`, maxRetries: 0 });
    await expect(bad.videos.retrieve('task_01ARZ3NDEKTSV4RRFFQ69G5FAV')).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const err = await client.videos
      .create({
        model: 'wan9-i2v-flash-5s-720p',
        prompt: 'x',
        metadata: { input: { img_url: 'https://e.com/a.png' } },
      } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('maps a validation failure to BadRequestError naming the field', async () => {
    const err = await client.videos
      .create({
        model: 'wan2.6-i2v-flash-5s-720p',
        prompt: 'x',
        seconds: '8',
        metadata: { input: { img_url: 'https://e.com/a.png' } },
      } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toContain('seconds');
  });
});
