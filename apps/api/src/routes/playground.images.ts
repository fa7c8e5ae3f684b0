import { imagesResponse } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { type ImagesResponse, imageRequestSchema } from '@mediagate/shared/images';
import { STILL_IMAGE_TYPES, stillImageType } from '@mediagate/shared/media';
import type { Request, Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import type { PresentImages } from '../image-answers';
import { editBody, editImageHandlers, generateImageHandlers } from '../image-handlers';
import { playgroundAuth } from '../middleware/playground-auth';
import { requireSession, sessionOf } from '../middleware/session';
import { type ContractDeps, endpoint, ok, type Route, type RouteContract } from '../route';

/** How long an image's download link works: a vendor keeps its results about a day. */
const DOWNLOAD_LINK_TTL_S = 24 * 3600;
const DOWNLOAD_PATH = '/console/api/playground/images/download';
const EXTENSION = { png: 'png', jpeg: 'jpg', webp: 'webp' } as const;

const playgroundImages = imagesResponse
  .extend({
    data: z.array(
      z.object({
        url: z.string().optional(),
        b64_json: z.string().optional(),
        download_url: z
          .string()
          .optional()
          .describe(`with url: ${DOWNLOAD_PATH}?…, the image as an attachment (this session only)`),
      }),
    ),
  })
  .meta({ id: 'PlaygroundImagesResponse' });

const downloadQuery = z.object({
  url: z.url({ protocol: /^https?$/ }).max(4096),
  exp: z.string().regex(/^\d{1,12}$/, 'must be Unix seconds'),
  sig: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be the link signature'),
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
});

/** What a download link signs: the account it was made for, its end, and the vendor's URL. */
const signed = (accountId: string, exp: number, url: string) =>
  `playground-image\n${accountId}\n${exp}\n${url}`;

/**
 * The playground's answer: each image the vendor hosts by URL gets a `download_url` on this origin,
 * signed for the session's account, so that Download downloads (a browser ignores `download` on a
 * link to another origin and opens the image instead) while the API fetches only URLs a vendor gave.
 */
const withDownloadLinks =
  (deps: ApiDeps): PresentImages =>
  (result: ImagesResponse, req: Request) => {
    const { accountId } = sessionOf(req);
    const exp = Math.floor(Date.now() / 1000) + DOWNLOAD_LINK_TTL_S;
    return {
      ...result,
      data: result.data.map((d, i) => {
        if (!('url' in d)) return d;
        const sig = deps.media.signer.sign(signed(accountId, exp, d.url));
        const query = new URLSearchParams({
          url: d.url,
          exp: String(exp),
          sig,
          name: `image-${result.created}-${i + 1}`,
        });
        return { ...d, download_url: `${DOWNLOAD_PATH}?${query}` };
      }),
    };
  };

/**
 * The console's playground makes images on the session, as the account's playground key
 * (middleware/playground-auth.ts), through the very handlers of POST /v1/images/generations and
 * /v1/images/edits (no key is ever sent to the browser), and downloads what the vendor hosts.
 */
function register(router: Router, deps: ApiDeps): void {
  const present = withDownloadLinks(deps);
  router.post(
    '/playground/images/generations',
    ...generateImageHandlers(deps, playgroundAuth(deps), present),
  );
  router.post('/playground/images/edits', ...editImageHandlers(deps, playgroundAuth(deps), present));
  // GET …/download: a vendor-hosted result by the link its answer carried, as an attachment. Only
  // links signed for this session's account are followed: never a URL the browser chose.
  router.get('/playground/images/download', requireSession(deps), async (req, res) => {
    const query = downloadQuery.safeParse(req.query);
    if (!query.success) throw new ApiError('not_found', 'No such download link.', 'url');
    const { url, name } = query.data;
    const exp = Number(query.data.exp);
    if (!deps.media.signer.verifyText(signed(sessionOf(req).accountId, exp, url), query.data.sig)) {
      throw new ApiError('invalid_media_link', 'This download link is not valid.', 'sig');
    }
    if (exp * 1000 <= Date.now()) {
      throw new ApiError('not_found', 'This download link has expired; generate the image again.', 'exp');
    }
    const fetched = await deps.images.fetchResult(url).catch((err: unknown) => {
      req.log.warn({ err: (err as Error).message }, 'a playground image could not be fetched');
      throw new ApiError('service_unavailable', 'The image could not be fetched from its host; try again.');
    });
    const type = fetched.status === 200 ? stillImageType(fetched.body.subarray(0, 16)) : undefined;
    if (!type) {
      req.log.warn({ status: fetched.status }, 'a playground image is no longer served by its host');
      throw new ApiError('not_found', 'The image is no longer kept by its host; generate it again.', 'url');
    }
    res.set({
      'content-type': STILL_IMAGE_TYPES[type],
      'content-length': String(fetched.body.length),
      'content-disposition': `attachment; filename="${name ?? 'image'}.${EXTENSION[type]}"`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    });
    res.status(200).end(fetched.body);
  });
}

const playgroundAnswers = {
  200: ok(playgroundImages, 'the images, each hosted one with its download link'),
  402: 'balance too low',
  403: 'the playground key is disabled, or may not use the model',
  404: 'unknown model',
  409: 'the account holds the most keys it may, and the playground needs one',
  429: "over the key's requests per minute",
};

const contracts = ({ catalog }: ContractDeps): RouteContract[] => [
  endpoint(
    'POST /console/api/playground/images/generations',
    "Generate images from the console, as the account's playground key: billed and limited like POST /v1/images/generations",
    { tag: 'console', auth: 'session', body: imageRequestSchema(catalog.images()), ...playgroundAnswers },
  ),
  endpoint(
    'POST /console/api/playground/images/edits',
    "Edit images from the console, as the account's playground key: billed and limited like POST /v1/images/edits",
    {
      tag: 'console',
      auth: 'session',
      body: {
        schema: editBody(catalog.images().filter((m) => m.input.max > 0)),
        multipart: true,
        json: true,
      },
      ...playgroundAnswers,
    },
  ),
  endpoint(
    'GET /console/api/playground/images/download',
    'A playground image its host keeps, by the download link of its answer, as an attachment',
    {
      tag: 'console',
      auth: 'session',
      query: downloadQuery,
      200: { description: 'the image (PNG, JPEG or WebP)', contentType: 'image/png' },
      403: 'invalid_media_link: not a link made for this account',
      404: 'the link expired, or the host no longer keeps the image',
      503: 'the host could not be reached',
    },
  ),
];

export const route: Route = { mount: '/console/api', contracts, register };
