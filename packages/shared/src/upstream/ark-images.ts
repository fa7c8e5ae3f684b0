import type { Agent } from 'undici';
import { UpstreamError } from '../errors';
import { callVendor, type UpstreamChannel } from './vendor-http';

/** The body of Ark's `POST /api/v3/images/generations` (spec/upstreams.md section B). */
export interface ArkImageRequest {
  model: string;
  prompt: string;
  image?: string | string[];
  size?: string;
  sequential_image_generation?: 'auto' | 'disabled';
  sequential_image_generation_options?: { max_images: number };
  response_format: 'url' | 'b64_json';
  watermark?: boolean;
  seed?: number;
  guidance_scale?: number;
}

/** One item of Ark's `data`: an image (URL or base64), or the reason this one was not made. */
export type ArkImageItem =
  | { ok: true; url?: string; b64_json?: string; size?: string }
  | { ok: false; code: string; message: string };

export interface ArkImageResult {
  items: ArkImageItem[];
  usage: { generated_images?: number; output_tokens?: number; total_tokens?: number };
}

const VENDOR = 'ark';
const PATH = '/api/v3/images/generations';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function parseItem(raw: unknown): ArkImageItem {
  const item = (raw ?? {}) as Record<string, unknown>;
  const url = typeof item.url === 'string' && item.url.length > 0 ? item.url : undefined;
  const b64 = typeof item.b64_json === 'string' && item.b64_json.length > 0 ? item.b64_json : undefined;
  if (url || b64) {
    return { ok: true, url, b64_json: b64, size: typeof item.size === 'string' ? item.size : undefined };
  }
  const error = (item.error ?? {}) as Record<string, unknown>;
  return {
    ok: false,
    code: typeof error.code === 'string' ? error.code : 'upstream_item_failed',
    message: typeof error.message === 'string' ? error.message : 'The upstream did not make this image.',
  };
}

/** Seedream image generation on Volcengine Ark, synchronous, spoken as the vendor defines it. */
export class ArkImagesClient {
  constructor(
    private readonly agent: Agent,
    private readonly opts: { maxResponseBytes: number },
  ) {}

  /**
   * Generates images. Resolves with every item of the answer, failed ones included (a batch can
   * fail per item); throws UpstreamError when the call itself failed or the answer has no `data`.
   */
  async generate(channel: UpstreamChannel, body: ArkImageRequest): Promise<ArkImageResult> {
    const res = (await callVendor(this.agent, channel, {
      vendor: VENDOR,
      method: 'POST',
      path: PATH,
      body,
      maxBytes: this.opts.maxResponseBytes,
    })) as { data?: unknown; usage?: Record<string, unknown> } | null;
    if (!res || !Array.isArray(res.data)) {
      throw new UpstreamError('ark answered without data', {
        vendor: VENDOR,
        channel: channel.name,
        retryable: false,
      });
    }
    const usage = res.usage ?? {};
    return {
      items: res.data.map(parseItem),
      usage: {
        generated_images: num(usage.generated_images),
        output_tokens: num(usage.output_tokens),
        total_tokens: num(usage.total_tokens),
      },
    };
  }
}
