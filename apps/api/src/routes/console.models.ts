import {
  type CatalogModel,
  type ImageModel,
  maxImagesPerRequest,
  type ModelCatalog,
} from '@mediagate/shared/catalog';
import { listOf } from '@mediagate/shared/contracts';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { requireSession } from '../middleware/session';
import { endpoint, type Route } from '../route';

const usd = (micro: number) => micro / 1_000_000;

/** What one call of the model costs at list price: per image, or per task (duration × per-second price). */
function priceOf(m: CatalogModel) {
  if (m.kind === 'image')
    return { unit: 'image' as const, price_usd: usd(m.priceMicroUsd), silent_price_usd: null };
  return {
    unit: 'task' as const,
    price_usd: usd(m.durationSeconds * m.pricePerSecondMicroUsd.withAudio),
    // a model whose sound is always on has one price
    silent_price_usd: m.audioOptional ? usd(m.durationSeconds * m.pricePerSecondMicroUsd.silent) : null,
  };
}

/** Sizes the console offers besides a model's named ones: common shapes, kept where the model's rule allows them. */
const COMMON_SIZES = [
  '1024x1024',
  '1280x720',
  '720x1280',
  '1152x864',
  '864x1152',
  '2048x2048',
  '2560x1440',
  '1440x2560',
];

/** The sizes a form may offer for an image model: its named sizes, then the common ones it takes. */
function sizeOptions(m: ImageModel): string[] {
  const rule = m.size;
  if (!rule) return [];
  const fits = (size: string) => {
    const [w = 0, h = 0] = size.split('x').map(Number);
    const short = Math.min(w, h);
    const long = Math.max(w, h);
    return (
      w * h >= rule.minPixels &&
      w * h <= rule.maxPixels &&
      (rule.minSide === undefined || short >= rule.minSide) &&
      (rule.maxSide === undefined || long <= rule.maxSide) &&
      long <= short * rule.maxAspectRatio
    );
  };
  return [...Object.keys(rule.named), ...COMMON_SIZES.filter(fits)];
}

function modelView(m: CatalogModel) {
  return {
    object: 'model' as const,
    id: m.id,
    type: m.kind,
    endpoints:
      m.kind === 'video'
        ? ['/v1/videos']
        : m.input.max > 0
          ? m.input.min > 0
            ? ['/v1/images/edits']
            : ['/v1/images/generations', '/v1/images/edits']
          : ['/v1/images/generations'],
    needs_image: m.kind === 'video' || (m.kind === 'image' && m.input.min > 0),
    duration_seconds: m.kind === 'video' ? m.durationSeconds : null,
    resolution: m.kind === 'video' ? m.resolution : null,
    sizes: m.kind === 'image' ? sizeOptions(m) : [],
    max_n: m.kind === 'image' ? maxImagesPerRequest(m, m.input.min) : 1,
    max_input_images: m.kind === 'image' ? m.input.max : 1,
    ...priceOf(m),
  };
}

/**
 * The first paid call a new account's test credit covers: the cheapest image model that makes an
 * image from a prompt alone at or under the credit (the one call a connectivity check needs), or
 * null when no model fits. Video models never fit a small credit (the cheapest is 0.125 USD).
 */
export function connectivityCheck(catalog: ModelCatalog, creditMicroUsd: number) {
  const fitting = catalog.models
    .filter((m) => m.kind === 'image' && m.input.min === 0 && m.priceMicroUsd <= creditMicroUsd)
    .sort((a, b) => (a.kind === 'image' && b.kind === 'image' ? a.priceMicroUsd - b.priceMicroUsd : 0));
  const m = fitting[0];
  return m && m.kind === 'image'
    ? { model: m.id, price_usd: usd(m.priceMicroUsd), calls: Math.floor(creditMicroUsd / m.priceMicroUsd) }
    : null;
}

/**
 * GET /console/api/models: the catalog's models with what one call costs (the models and pricing
 * page, key limits). GET /console/api/quickstart: what a first call needs: the base URL, the
 * reference's address, the test credit and the call it pays for.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/models', requireSession(deps), (_req, res) => {
    res.status(200).json({ object: 'list', data: deps.catalog.models.map(modelView) });
  });
  router.get('/quickstart', requireSession(deps), (req, res) => {
    const credit = Math.round(deps.config.SIGNUP_CREDIT_USD * 1_000_000);
    const videos = deps.catalog.models.flatMap((m) =>
      m.kind === 'video'
        ? [
            m.durationSeconds *
              Math.min(
                m.pricePerSecondMicroUsd.withAudio,
                m.audioOptional ? m.pricePerSecondMicroUsd.silent : Infinity,
              ),
          ]
        : [],
    );
    const base = (deps.config.PUBLIC_BASE_URL ?? `${req.protocol}://${req.get('host')}`).replace(/\/+$/, '');
    res.status(200).json({
      base_url: `${base}/v1`,
      docs_url: `${base}/docs`,
      test_credit_usd: usd(credit),
      connectivity_check: connectivityCheck(deps.catalog, credit),
      cheapest_video_usd: videos.length ? usd(Math.min(...videos)) : null,
    });
  });
}

const consoleModel = z.object({
  object: z.literal('model'),
  id: z.string(),
  type: z.enum(['image', 'video']),
  endpoints: z.array(z.string()),
  needs_image: z.boolean().describe('the call needs an input image (image-to-video, editing)'),
  duration_seconds: z.number().int().nullable(),
  resolution: z.string().nullable(),
  sizes: z
    .array(z.string())
    .describe("sizes to offer for an image model's `size` (its named sizes first); empty: it takes no size"),
  max_n: z.number().int().describe('the most images one call may ask for (`n`); 1 for a video model'),
  max_input_images: z.number().int().describe('the most input images a call takes (0: from text only)'),
  unit: z.enum(['image', 'task']).describe('what price_usd pays for: one image, or one video task'),
  price_usd: z.number().describe('list price of one image, or of one video task with sound'),
  silent_price_usd: z.number().nullable().describe('a silent video task, when the model can be silent'),
});

const quickstart = z
  .object({
    base_url: z.string().describe('the base URL an OpenAI client is given'),
    docs_url: z.string(),
    test_credit_usd: z.number().describe('the credit a new account gets at sign-up'),
    connectivity_check: z
      .object({
        model: z.string(),
        price_usd: z.number(),
        calls: z.number().int().describe('how many such calls the test credit pays for'),
      })
      .nullable()
      .describe('the cheapest call that makes something (an image from a prompt) within the test credit'),
    cheapest_video_usd: z.number().nullable(),
  })
  .meta({ id: 'ConsoleQuickstart' });

export const contracts = [
  endpoint('GET /console/api/models', 'The catalog with what one call of each model costs', {
    tag: 'console',
    auth: 'session',
    200: listOf(consoleModel, 'ConsoleModelList'),
  }),
  endpoint(
    'GET /console/api/quickstart',
    'What a first call needs: base URL, test credit and the call it pays for',
    {
      tag: 'console',
      auth: 'session',
      200: quickstart,
    },
  ),
];

export const route: Route = { mount: '/console/api', contracts, register };
