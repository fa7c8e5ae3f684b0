import type { Agent } from 'undici';
import { UpstreamError } from '../errors';
import { callVendor, type UpstreamChannel } from './vendor-http';

/** What one qwen-image-edit call takes (spec/upstreams.md section C). */
export interface ImageEditRequest {
  model: string;
  /** 1-3 image URLs or data URLs, in order (the last ones are references for fusion or style) */
  images: string[];
  prompt: string;
  parameters: { negative_prompt?: string; watermark?: boolean; seed?: number };
}

const VENDOR = 'dashscope';
const PATH = '/api/v1/services/aigc/multimodal-generation/generation';

/** DashScope's synchronous multimodal generation with qwen-image-edit, spoken as the vendor defines it. */
export class DashScopeImageEditClient {
  constructor(
    private readonly agent: Agent,
    private readonly opts: { maxResponseBytes: number },
  ) {}

  /**
   * Edits the images into one new image and resolves with its URL. Throws UpstreamError when the
   * call failed or the answer holds no image.
   */
  async edit(channel: UpstreamChannel, req: ImageEditRequest): Promise<{ url: string }> {
    const content: Array<{ image: string } | { text: string }> = req.images.map((image) => ({ image }));
    content.push({ text: req.prompt });
    const res = (await callVendor(this.agent, channel, {
      vendor: VENDOR,
      method: 'POST',
      path: PATH,
      body: {
        model: req.model,
        input: { messages: [{ role: 'user', content }] },
        ...(Object.keys(req.parameters).length > 0 ? { parameters: req.parameters } : {}),
      },
      maxBytes: this.opts.maxResponseBytes,
    })) as { output?: { choices?: Array<{ message?: { content?: Array<{ image?: unknown }> } }> } } | null;
    const url = res?.output?.choices
      ?.flatMap((c) => c.message?.content ?? [])
      .map((c) => c.image)
      .find((u): u is string => typeof u === 'string' && u.length > 0);
    if (!url) {
      throw new UpstreamError('dashscope answered without an image', {
        vendor: VENDOR,
        channel: channel.name,
        retryable: false,
      });
    }
    return { url };
  }
}
