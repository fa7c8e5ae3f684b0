import { ApiError } from '@mediagate/shared/errors';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { isPlainJson, readJsonBody } from './json-body';
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
  /**
   * file fields a multipart form may carry (kept in memory as `req.files[name]`); `tooMany` is
   * asked as each file starts and each text field arrives, with the files so far and the text
   * fields so far, and names why the form has too many files for what it asks (a 400 naming
   * `param`, the rest of the form unread), or answers undefined
   */
  files?: {
    fields: string[];
    maxCount: number;
    maxFileBytes: number;
    tooMany?: (
      files: number,
      fields: Readonly<Record<string, string>>,
    ) => { message: string; param: string } | undefined;
  };
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
    const refuse = (what: string) => refusals.get(req)?.(tooLarge(what));
    const fieldsSoFar: Record<string, string> = {};
    let filesSoFar = 0;
    const countFiles = () => {
      const over = files?.tooMany?.(filesSoFar, fieldsSoFar);
      if (over) refusals.get(req)?.(new ApiError('invalid_request', over.message, over.param));
    };
    busboy.on(
      'field',
      (name: string, value: string, info: { nameTruncated: boolean; valueTruncated: boolean }) => {
        if (info.valueTruncated) refuse(`the form field '${name.slice(0, 100)}' is over ${fieldSize} bytes`);
        else if (info.nameTruncated) refuse(`a form field name is over ${FORM_FIELD_NAME_MAX_BYTES} bytes`);
        else if (files?.tooMany) {
          fieldsSoFar[name] = value;
          countFiles();
        }
      },
    );
    busboy.on('fieldsLimit', () => refuse(`the form has more than ${FORM_MAX_FIELDS} fields`));
    busboy.on('partsLimit', () => refuse(`the form has more than ${limits.parts} parts`));
    if (fileCount > 0) {
      busboy.on('filesLimit', () => refuse(`the form has more than ${fileCount} files`));
      busboy.on('file', (name: string, stream: NodeJS.ReadableStream) => {
        stream.on('limit', () => refuse(`the file in '${name.slice(0, 100)}' is over ${fileSize} bytes`));
        filesSoFar += 1;
        countFiles();
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
      closeAfterAnswer(req, res);
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
    const parsed = (err?: unknown) => {
      refusals.delete(req);
      if (err) return guarded.settle(err);
      try {
        assertWellFormedStrings(req.body);
      } catch (e) {
        return guarded.settle(e);
      }
      guarded.settle();
    };
    if (isJson && isPlainJson(req)) {
      req.body = undefined;
      const lengthCounted = admittedBodies.has(req);
      const grow = bodyGrowth.get(req);
      // a budget counting the body as it arrives is charged for the reader's buffer, not only the bytes in it
      const hold =
        grow &&
        ((bytes: number) => {
          const refused = grow(bytes);
          if (refused) guarded.refuse(refused);
          return !refused;
        });
      guarded.stopReading = readJsonBody(
        req,
        { limitBytes: opts.limitBytes, lengthCounted, hold },
        (err, body) => {
          if (!err) req.body = body;
          parsed(err ?? undefined);
        },
      );
      return;
    }
    (isJson ? json : form)(req, res, parsed);
  };
  return [chooser];
}

/**
 * Asked with the bytes of a body received so far (or held, when the JSON reader holds more), for
 * bodies sent without a length whose bytes are counted as they arrive (see admitBody): an error
 * refuses the body at once.
 */
export const bodyGrowth: WeakMap<Request, (received: number) => ApiError | undefined> = new WeakMap();

/**
 * Requests whose declared length a budget of bodies in flight already counts (see admitBody): the
 * JSON reader may hold that length from the start. Any other body is held only as it arrives.
 */
export const admittedBodies: WeakSet<Request> = new WeakSet();

/** The refusal of each request whose form is being parsed (busboy's limit events call it). */
const refusals = new WeakMap<Request, (err: ApiError) => void>();

const tooLarge = (what: string) => new ApiError('request_too_large', `The request is too large: ${what}.`);

/** What capBody gives the parser of a body it counts. */
interface BodyGuard {
  /** ends the parse, with its error (once; later calls are ignored) */
  settle: (err?: unknown) => void;
  /** answers `err` at once without reading the rest of the body */
  refuse: (err: ApiError) => void;
  /** stops the parser's own reading and frees what it read, when the body is refused */
  stopReading?: () => void;
}

/**
 * Counts the body's bytes as they arrive, whoever reads them. Returns the guard of the parse (its
 * `settle` called once parsing ends, at most once), or undefined when the request was already
 * refused by its Content-Length. Past the limit it answers 413 at once and closes the connection
 * after the answer, so a large body is neither buffered nor read to its end; a parser that
 * finishes later (multer drains what it has not read before reporting) is ignored.
 */
function capBody(req: Request, res: Response, next: NextFunction, limitBytes: number): BodyGuard | undefined {
  let settled = false;
  let received = 0;
  const grow = bodyGrowth.get(req);
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limitBytes) return refuse(tooLarge(overall));
    const refused = grow?.(received);
    if (refused) refuse(refused);
  };
  const settle = (err?: unknown) => {
    if (settled) return;
    settled = true;
    req.off('data', count);
    next(err);
  };
  const refuse = (err: ApiError) => {
    if (settled) return;
    guard.stopReading?.();
    req.unpipe();
    req.pause();
    closeAfterAnswer(req, res);
    settle(err);
  };
  const guard: BodyGuard = { settle, refuse };
  const overall = `the body is over the limit of ${limitBytes} bytes`;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    refuse(tooLarge(overall));
    return undefined;
  }
  req.on('data', count);
  return guard;
}

/**
 * For an answer given without reading the rest of the body: the connection closes after it
 * (see lingerThenClose) instead of reading the body to its end to keep the connection alive.
 */
export function closeAfterAnswer(req: Request, res: Response): void {
  if (!res.headersSent) res.setHeader('connection', 'close');
  res.once('finish', () => lingerThenClose(req));
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
