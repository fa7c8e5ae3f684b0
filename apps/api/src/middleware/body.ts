import { ApiError } from '@mediagate/shared';
import express, { type RequestHandler } from 'express';
import multer from 'multer';

/**
 * Parses a JSON body, or a multipart form when `multipart` is allowed (the official `openai`
 * client sends some creates that way; bracket keys become nested objects). Any other content
 * type on a request with a body is a 415.
 */
export function parseBody(opts: {
  limitBytes: number;
  multipart?: boolean;
  /** file fields a multipart form may carry (kept in memory as `req.files[name]`) */
  files?: { fields: string[]; maxCount: number; maxFileBytes: number };
}): RequestHandler[] {
  const json = express.json({ limit: opts.limitBytes, strict: false });
  const files = opts.files;
  const limits = { fieldSize: opts.limitBytes, fields: 64, files: files?.maxCount ?? 0, parts: 64 };
  const form = files
    ? multer({ limits: { ...limits, fileSize: files.maxFileBytes } }).fields(
        files.fields.map((name) => ({ name, maxCount: files.maxCount })),
      )
    : multer({ limits }).none();
  const chooser: RequestHandler = (req, res, next) => {
    const type = req.headers['content-type'] ?? '';
    const hasBody =
      req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (/^application\/(.+\+)?json/i.test(type)) return json(req, res, next);
    if (opts.multipart && /^multipart\/form-data/i.test(type)) return form(req, res, next);
    if (!hasBody) {
      req.body = undefined;
      return next();
    }
    const accepted = opts.multipart ? 'application/json or multipart/form-data' : 'application/json';
    return next(
      new ApiError(
        'unsupported_media_type',
        `Unsupported Content-Type '${type || '(none)'}'; send ${accepted}.`,
      ),
    );
  };
  return [chooser];
}
