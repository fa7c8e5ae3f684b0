import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { parseArkRequest } from './ark-request';
import { passFaults } from './faults';
import { countRejected, publicBase, requireKey } from './http-helpers';
import { imagePath } from './media';
import type { PngCache } from './png';
import type { SimState } from './state';
import { arkError, arkRequestId } from './vendor-errors';

export const ARK_IMAGES_PATH = '/api/v3/images/generations';

const SENSITIVE_OUTPUT = {
  code: 'OutputImageSensitiveContentDetected',
  message: 'The request failed because the output image may contain sensitive information.',
};

const rejectKey = () =>
  arkError(401, 'AuthenticationError', 'The API key or AK/SK in the request is missing or invalid.');

/**
 * Ark image generation with Seedream (spec section B), synchronous. Planned item failures (control API)
 * become `{error}` items of a batch; a single-image request whose only image fails answers the
 * vendor's 400 OutputImageSensitiveContentDetected instead.
 */
export function register(router: Router, state: SimState, pngs: PngCache): void {
  router.use(
    ARK_IMAGES_PATH,
    countRejected(() => {
      state.counters.ark_images.rejected += 1;
    }),
  );
  router.post(ARK_IMAGES_PATH, async (req, res) => {
    try {
      await passFaults(state.faults, 'ark_images');
      const key = requireKey(req, state, rejectKey);
      const now = Date.now();
      if (!state.arkLimiter.tryTake(key, now)) {
        throw arkError(
          429,
          'RateLimitExceeded.EndpointRPMExceeded',
          'The request has exceeded the rate limit of requests per minute (RPM) for the endpoint. Please try again later.',
        );
      }
      const request = parseArkRequest(req.body);
      const failures = state.takeArkItemFailures(request.count);
      if (failures === request.count && !request.sequential) {
        throw arkError(400, SENSITIVE_OUTPUT.code, SENSITIVE_OUTPUT.message);
      }
      const { width, height } = request.size;
      const sizeText = `${width}x${height}`;
      const base = publicBase(req, state.config);
      const b64 = request.responseFormat === 'b64_json' ? pngs.get(width, height).toString('base64') : '';
      const generated = request.count - failures;
      const data: unknown[] = [];
      for (let i = 0; i < generated; i++) {
        data.push(
          request.responseFormat === 'b64_json'
            ? { b64_json: b64, size: sizeText }
            : { url: `${base}${imagePath(randomUUID(), width, height)}`, size: sizeText },
        );
      }
      for (let i = 0; i < failures; i++) data.push({ error: { ...SENSITIVE_OUTPUT } });
      const tokens = generated * Math.floor((width * height) / 256);
      state.counters.ark_images.calls += 1;
      state.counters.ark_images.images += generated;
      state.counters.ark_images.failed_items += failures;
      res.set('x-request-id', arkRequestId());
      res.json({
        model: request.model,
        created: Math.floor(now / 1000),
        data,
        usage: { generated_images: generated, output_tokens: tokens, total_tokens: tokens },
      });
    } catch (err) {
      state.counters.ark_images.rejected += 1;
      throw err;
    }
  });
}
