import { videoTaskPrice } from '@mediagate/shared/catalog';
import { ApiError } from '@mediagate/shared/errors';
import {
  deletePlaygroundUpload,
  getServedUpload,
  listServedUploads,
  MediaTooLargeError,
  MediaTypeError,
  storePlaygroundUpload,
  UploadQuotaError,
  uploadFileName,
} from '@mediagate/shared/media';
import { refuseUnaffordable } from '@mediagate/shared/billing';
import type { PlaygroundUploadRow } from '@mediagate/shared/db';
import type { Request, RequestHandler, Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { principalOf } from '../middleware/auth';
import { closeAfterAnswer, parseBody } from '../middleware/body';
import { admitBody, leastPriceAmong } from '../middleware/body-admission';
import { playgroundAuth } from '../middleware/playground-auth';
import { requireSession, sessionOf } from '../middleware/session';
import { endpoint, ok, type Route } from '../route';

/** An upload's public file name: its id (32 random base-62 characters) and the extension of its type. */
const FILE_NAME = /^(upl_[0-9A-Za-z]{32})\.(png|jpg|webp)$/;
const UPLOAD_ID = /^upl_[0-9A-Za-z]{32}$/;

const uploadObject = z
  .object({
    object: z.literal('playground.upload'),
    id: z.string(),
    url: z
      .string()
      .describe('where the image is served without credentials until expires_at (a video’s img_url)'),
    content_type: z.enum(['image/png', 'image/jpeg', 'image/webp']),
    bytes: z.number().int(),
    expires_at: z.number().int().describe('Unix seconds'),
  })
  .meta({ id: 'PlaygroundUpload' });

const uploadList = z
  .object({
    object: z.literal('list'),
    data: z.array(uploadObject.extend({ created_at: z.number().int().describe('Unix seconds') })),
  })
  .meta({ id: 'PlaygroundUploadList' });

/** The most uploads a list shows: more than an account can hold at once with the default limits. */
const LIST_LIMIT = 100;

const uploadForm = z.object({
  file: z.string().meta({ format: 'binary' }).describe('a PNG, JPEG or WebP image'),
});

const uploadDeleted = z
  .object({ id: z.string(), object: z.literal('playground.upload.deleted'), deleted: z.literal(true) })
  .meta({ id: 'PlaygroundUploadDeleted' });

const publicBase = (deps: ApiDeps, req: Request) =>
  (deps.config.PUBLIC_BASE_URL ?? `${req.protocol}://${req.get('host')}`).replace(/\/+$/, '');

/** An upload as the API answers it, with the URL it is served at. */
const uploadAnswer = (deps: ApiDeps, req: Request, row: PlaygroundUploadRow) => ({
  object: 'playground.upload' as const,
  id: row.id,
  url: `${publicBase(deps, req)}/media/uploads/${uploadFileName(row)}`,
  content_type: row.contentType as z.infer<typeof uploadObject>['content_type'],
  bytes: row.bytes ?? 0,
  expires_at: Math.floor(row.expiresAt.getTime() / 1000),
});

/**
 * POST /console/api/playground/uploads: an image for a video's input, uploaded in the console instead
 * of given by URL. The vendor fetches a video's `img_url` itself, so the image is stored (media
 * storage, local or S3) and served at an unguessable URL (`/media/uploads/<id>.<ext>`) until it
 * expires. As the account's playground key: its per-minute limit counts, and the body is read
 * only when the balance covers the cheapest video (an upload is for a video). Checked by its
 * bytes (PNG, JPEG or WebP), at most PLAYGROUND_UPLOAD_MAX_BYTES, at most PLAYGROUND_UPLOADS_PER_DAY a
 * day per account (deleting one does not give it back), so that it is no free file hosting.
 * GET /console/api/playground/uploads lists the account's uploads still served, newest first, so
 * its owner can use one again or end it: DELETE /console/api/playground/uploads/:uploadId ends one
 * at once.
 */
function registerConsole(router: Router, deps: ApiDeps): void {
  const maxBytes = deps.config.PLAYGROUND_UPLOAD_MAX_BYTES;
  // the file and the form around it
  const limitBytes = maxBytes + 64 * 1024;
  const leastVideoPrice = leastPriceAmong(
    deps.catalog.models.flatMap((m) =>
      m.kind === 'video'
        ? [{ id: m.id, price: Math.min(videoTaskPrice(m, false), videoTaskPrice(m, true)) }]
        : [],
    ),
  );
  // whatever its size, an upload is read only when the balance covers the cheapest video it is for
  const refuseWithoutVideoBalance: RequestHandler = async (req, res, next) => {
    try {
      const principal = principalOf(req);
      const price = leastVideoPrice(principal.allowedModels ?? null);
      if (price === null)
        throw new ApiError('permission_denied', 'The playground key may not use any video model.', 'file');
      await refuseUnaffordable(deps.database.db, principal, price);
      next();
    } catch (err) {
      closeAfterAnswer(req, res);
      next(err);
    }
  };
  router.post(
    '/playground/uploads',
    ...playgroundAuth(deps),
    refuseWithoutVideoBalance,
    admitBody(deps, { limitBytes, models: 'video model', leastPrice: leastVideoPrice }),
    ...parseBody({
      limitBytes,
      multipart: true,
      files: { fields: ['file'], maxCount: 1, maxFileBytes: maxBytes },
    }),
    async (req, res) => {
      const { accountId } = sessionOf(req);
      const file = ((req.files ?? {}) as Record<string, Express.Multer.File[]>).file?.[0];
      if (!req.is('multipart/form-data') || !file) {
        throw new ApiError(
          'invalid_request',
          "Send the image as the multipart form field 'file' (a PNG, JPEG or WebP image).",
          'file',
        );
      }
      const row = await storePlaygroundUpload(
        { db: deps.database.db, storage: deps.media.storage },
        accountId,
        file.buffer,
        {
          maxBytes,
          perDay: deps.config.PLAYGROUND_UPLOADS_PER_DAY,
          lifetimeMs: deps.config.PLAYGROUND_UPLOAD_TTL_MS,
        },
      ).catch((err: unknown) => {
        if (err instanceof MediaTypeError)
          throw new ApiError('invalid_request', 'The file must be a PNG, JPEG or WebP image.', 'file');
        if (err instanceof MediaTooLargeError)
          throw new ApiError(
            'request_too_large',
            `The image is over ${Math.round(maxBytes / 1024 / 1024)} MB; send a smaller one.`,
            'file',
          );
        if (err instanceof UploadQuotaError)
          throw new ApiError(
            'rate_limit_exceeded',
            `This account has uploaded ${err.limit} images in the last day, the most it may; give the image by URL, or try again later.`,
            'file',
            { 'retry-after': String(Math.max(1, Math.ceil((err.retryAt.getTime() - Date.now()) / 1000))) },
          );
        throw err;
      });
      req.log.info({ uploadId: row.id, bytes: row.bytes }, 'playground image uploaded');
      res.status(200).json({ ...uploadAnswer(deps, req, row), bytes: row.bytes ?? file.buffer.length });
    },
  );
  router.get('/playground/uploads', requireSession(deps), async (req, res) => {
    const rows = await listServedUploads(deps.database.db, sessionOf(req).accountId, LIST_LIMIT);
    res.status(200).json({
      object: 'list',
      data: rows.map((row) => ({
        ...uploadAnswer(deps, req, row),
        created_at: Math.floor(row.createdAt.getTime() / 1000),
      })),
    });
  });
  router.delete('/playground/uploads/:uploadId', requireSession(deps), async (req, res) => {
    const id = String(req.params.uploadId);
    const deleted =
      UPLOAD_ID.test(id) &&
      (await deletePlaygroundUpload(
        { db: deps.database.db, storage: deps.media.storage },
        sessionOf(req).accountId,
        id,
      ));
    if (!deleted) throw new ApiError('not_found', 'No such upload.', 'upload_id');
    res.status(200).json({ id, object: 'playground.upload.deleted', deleted: true });
  });
}

/**
 * GET /media/uploads/:file: a playground upload by its URL, without credentials (the vendor fetches
 * it). The bytes themselves, whatever the driver (an image is at most a few MB, and a vendor need
 * not follow a redirect), as the type its bytes were checked to be, never sniffed by a browser.
 */
function registerMedia(router: Router, deps: ApiDeps): void {
  router.get('/media/uploads/:file', async (req, res) => {
    const match = FILE_NAME.exec(String(req.params.file));
    const gone = () => new ApiError('not_found', 'No such upload, or it has expired.', 'url');
    const row = match ? await getServedUpload(deps.database.db, match[1]!) : null;
    if (!row || uploadFileName(row) !== req.params.file) throw gone();
    const etag = `"${row.sha256 ?? row.id}"`;
    const maxAge = Math.max(0, Math.min(3600, Math.floor((row.expiresAt.getTime() - Date.now()) / 1000)));
    const headers = { etag, 'cache-control': `public, max-age=${maxAge}` };
    if (
      req
        .get('if-none-match')
        ?.split(',')
        .some((t) => t.trim().replace(/^W\//, '') === etag)
    ) {
      res.set(headers);
      return void res.status(304).end();
    }
    const object = await deps.media.storage.get(row.storageKey);
    if (!object) {
      req.log.error({ key: row.storageKey }, 'a playground upload is missing from storage');
      throw gone();
    }
    res.set({
      ...headers,
      'content-type': row.contentType,
      'content-length': String(object.size),
      'content-disposition': `inline; filename="${uploadFileName(row)}"`,
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') {
      object.body.destroy();
      return void res.status(200).end();
    }
    object.body.on('error', (err) => res.destroy(err));
    object.body.pipe(res);
  });
}

export const routes = {
  console: {
    mount: '/console/api',
    contracts: [
      endpoint(
        'POST /console/api/playground/uploads',
        "Upload an image for a video's input (multipart field `file`); it is served at an unguessable URL until it expires",
        {
          tag: 'console',
          auth: 'session',
          body: { schema: uploadForm, multipart: true },
          200: ok(uploadObject, 'the upload, with the URL to give as metadata.input.img_url'),
          400: 'no file, or not a PNG, JPEG or WebP image',
          402: 'the balance does not cover the cheapest video',
          403: 'the playground key is disabled',
          413: 'the image is over PLAYGROUND_UPLOAD_MAX_BYTES',
          429: "over the key's requests per minute, or the account's uploads a day (Retry-After)",
        },
      ),
      endpoint(
        'GET /console/api/playground/uploads',
        'The account’s uploads still served (not deleted, not expired), newest first, at most 100',
        { tag: 'console', auth: 'session', 200: uploadList },
      ),
      endpoint(
        'DELETE /console/api/playground/uploads/:uploadId',
        'Delete one of the account’s uploads now',
        {
          tag: 'console',
          auth: 'session',
          200: uploadDeleted,
          404: 'no such upload of this account',
        },
      ),
    ],
    register: registerConsole,
  },
  media: {
    mount: '',
    contracts: [
      endpoint(
        'GET /media/uploads/:file',
        'A playground upload by its URL, without credentials, until it expires',
        {
          tag: 'videos',
          auth: 'none',
          200: { description: 'the image', contentType: 'image/png' },
          304: 'not modified (If-None-Match matches the ETag)',
          404: 'no such upload, or it has expired or was deleted',
        },
      ),
    ],
    register: registerMedia,
  },
} satisfies Record<string, Route>;
