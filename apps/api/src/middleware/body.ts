import { ApiError } from '@mediagate/shared/errors';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { assertWellFormedStrings } from './well-formed';

/** The largest text field of a multipart form (prompts are at most 4000 characters). */
export const FORM_FIELD_MAX_BYTES = 64 * 1024;
/** How many text fields a multipart form may carry. */
export const FORM_MAX_FIELDS = 48;
/** The longest field name of a multipart form, and its deepest bracket nesting. */
const FORM_FIELD_NAME_MAX_BYTES = 200;
const FORM_FIELD_MAX_NESTING = 4;

/**
 * Parses a JSON body, or a multipart form when `multipart` is allowed (the official `openai`
 * client sends some creates that way; bracket keys become nested objects). Any other content
 * type on a request with a body is a 415.
 *
 * `limitBytes` caps the whole body, whatever its encoding: a declared Content-Length over it is
 * refused before anything is read, and a body that grows past it while arriving is answered 413
 * `request_too_large` at once, the connection closed rather than read to its end. In a form,
 * each text field is at most `FORM_FIELD_MAX_BYTES`, at most `FORM_MAX_FIELDS` of them, and files
 * only in the named fields, each at most `maxFileBytes`; nothing past those limits is buffered.
 * Every string of the parsed body (keys too) must be well-formed UTF-16: a lone surrogate is a
 * 400 `invalid_request` naming the field.
 */
export function parseBody(opts: {
  limitBytes: number;
  multipart?: boolean;
  /** file fields a multipart form may carry (kept in memory as `req.files[name]`) */
  files?: { fields: string[]; maxCount: number; maxFileBytes: number };
}): RequestHandler[] {
  const json = express.json({ limit: opts.limitBytes, strict: false });
  const files = opts.files;
  const fieldSize = Math.min(FORM_FIELD_MAX_BYTES, opts.limitBytes);
  const fileCount = files ? files.maxCount + 1 : 0;
  const fileSize = files ? Math.min(files.maxFileBytes, opts.limitBytes) : 0;
  const limits = {
    fieldSize,
    fields: FORM_MAX_FIELDS,
    fieldNameSize: FORM_FIELD_NAME_MAX_BYTES,
    fieldNestingDepth: FORM_FIELD_MAX_NESTING,
    fieldArrayIndexLimit: 64,
    files: fileCount,
    parts: FORM_MAX_FIELDS + fileCount,
    headerPairs: 20,
  };
  const streamHandler = (req: Request, busboy: NodeJS.WritableStream) => {
    // busboy keeps at most a limit's worth of a part; refuse the request the moment one is passed,
    // instead of multer's way (drain the whole body, then report)
    const refuse = (what: string) => refusals.get(req)?.(what);
    busboy.on(
      'field',
      (name: string, _value: string, info: { nameTruncated: boolean; valueTruncated: boolean }) => {
        if (info.valueTruncated) refuse(`the form field '${name.slice(0, 100)}' is over ${fieldSize} bytes`);
        else if (info.nameTruncated) refuse(`a form field name is over ${FORM_FIELD_NAME_MAX_BYTES} bytes`);
      },
    );
    busboy.on('fieldsLimit', () => refuse(`the form has more than ${FORM_MAX_FIELDS} fields`));
    busboy.on('partsLimit', () => refuse(`the form has more than ${limits.parts} parts`));
    if (fileCount > 0) {
      busboy.on('filesLimit', () => refuse(`the form has more than ${fileCount} files`));
      busboy.on('file', (name: string, stream: NodeJS.ReadableStream) => {
        stream.on('limit', () => refuse(`the file in '${name.slice(0, 100)}' is over ${fileSize} bytes`));
      });
    }
    req.pipe(busboy);
  };
  // multer 2 options its type definitions do not list yet: streamHandler, fieldNestingDepth, fieldArrayIndexLimit
  const options = (extra: object) => ({ limits, streamHandler, ...extra }) as multer.Options;
  const form = files
    ? multer(options({ limits: { ...limits, fileSize } })).fields(
        files.fields.map((name) => ({ name, maxCount: files.maxCount })),
      )
    : multer(options({})).none();
  const chooser: RequestHandler = (req, res, next) => {
    const type = req.headers['content-type'] ?? '';
    const hasBody =
      req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    const isJson = /^application\/(.+\+)?json/i.test(type);
    const isForm = opts.multipart === true && /^multipart\/form-data/i.test(type);
    if (!isJson && !isForm) {
      if (!hasBody) {
        req.body = undefined;
        return next();
      }
      const accepted = opts.multipart ? 'application/json or multipart/form-data' : 'application/json';
      // the body is not read: close the connection after the answer rather than drain it
      res.setHeader('connection', 'close');
      res.once('finish', () => lingerThenClose(req));
      return next(
        new ApiError(
          'unsupported_media_type',
          `Unsupported Content-Type '${type || '(none)'}'; send ${accepted}.`,
        ),
      );
    }
    const guarded = capBody(req, res, next, opts.limitBytes);
    if (!guarded) return;
    refusals.set(req, guarded.refuse);
    const parser = isJson ? json : form;
    parser(req, res, (err?: unknown) => {
      refusals.delete(req);
      if (err) return guarded.settle(err);
      try {
        assertWellFormedStrings(req.body);
      } catch (e) {
        return guarded.settle(e);
      }
      guarded.settle();
    });
  };
  return [chooser];
}

/** The refusal of each request whose form is being parsed (busboy's limit events call it). */
const refusals = new WeakMap<Request, (what: string) => void>();

/**
 * Counts the body's bytes as they arrive, whoever reads them. Returns the `next` to call once
 * parsing ends (at most once), or undefined when the request was already refused by its
 * Content-Length. Past the limit it answers 413 at once and closes the connection after the
 * answer, so a large body is neither buffered nor read to its end; a parser that finishes
 * later (multer drains what it has not read before reporting) is ignored.
 */
function capBody(
  req: Request,
  res: Response,
  next: NextFunction,
  limitBytes: number,
): { settle: (err?: unknown) => void; refuse: (what: string) => void } | undefined {
  let settled = false;
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limitBytes) refuse(overall);
  };
  const settle = (err?: unknown) => {
    if (settled) return;
    settled = true;
    req.off('data', count);
    next(err);
  };
  const refuse = (what: string) => {
    if (settled) return;
    res.setHeader('connection', 'close');
    req.unpipe();
    req.pause();
    res.once('finish', () => lingerThenClose(req));
    settle(new ApiError('request_too_large', `The request is too large: ${what}.`));
  };
  const overall = `the body is over the limit of ${limitBytes} bytes`;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    refuse(overall);
    return undefined;
  }
  req.on('data', count);
  return { settle, refuse };
}

/** How long a refused request's remaining body is read and dropped before the connection is cut. */
const LINGER_MS = 1_000;

/**
 * After answering a refused body: Node would destroy the socket as soon as the answer is
 * flushed, and a client still sending would then get a reset before reading the answer. So the
 * write side is closed (the answer, then FIN), whatever the client still sends is dropped
 * unbuffered for at most LINGER_MS, and then the connection is cut.
 */
function lingerThenClose(req: Request): void {
  const socket = req.socket;
  if (socket.destroyed) return;
  socket.removeListener('finish', socket.destroy);
  req.removeAllListeners('data');
  req.on('data', () => {});
  req.resume();
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
  socket.once('end', () => socket.destroy());
}
