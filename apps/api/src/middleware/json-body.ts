import { AsyncResource } from 'node:async_hooks';
import type { Request } from 'express';

/** A Content-Type that body-parser's JSON reader takes as UTF-8 JSON (its default charset). */
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i;

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * Whether `readJsonBody` takes this request: a body still to read, sent as application/json in
 * UTF-8 and not compressed. Anything else (another charset, a compressed body, no body) is left to
 * body-parser, whose answers to those `readJsonBody` does not repeat.
 */
export function isPlainJson(req: Request): boolean {
  const encoding = req.headers['content-encoding'];
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
  return (
    hasBody &&
    req.readable &&
    (!encoding || encoding.toLowerCase() === 'identity') &&
    PLAIN_JSON.test(req.headers['content-type'] ?? '')
  );
}

/**
 * Reads and parses a body that `isPlainJson` takes, as express.json({ strict: false }) would:
 * the same value (a UTF-8 byte order mark dropped, an empty body read as {}), the same failures
 * by body-parser's `type` (`entity.parse.failed`, `entity.too.large`, `request.size.invalid`,
 * `request.aborted`), `done` called once in the caller's async context.
 *
 * It holds less while doing so: body-parser builds a string of the body chunk by chunk on the
 * JavaScript heap, flattens it into a second copy to parse it, and leaves both to a full garbage
 * collection. Here the bytes end in one buffer, which is freed the moment its text is decoded; that
 * text (outside the heap, as Node keeps a long ASCII string) lives only until the parse ends. So a
 * large body costs its parsed value plus one copy at a time, and a full collection gives back
 * nothing of it. Where that buffer comes from:
 * - `lengthCounted` (a budget of bodies in flight already counts the declared length, see
 *   admitBody): one buffer of the declared length from the start, the bytes copied in as they come;
 * - otherwise (no budget counts the declared length, or the body is sent chunked): a buffer grown
 *   as the bytes arrive, first the size of the first chunk, then doubled (up to the limit) when
 *   full, so it is never more than twice what arrived: a caller who sends only headers makes
 *   nothing be held. Before it grows, `hold` is asked with its new size (a budget counting a
 *   chunked body charges what is held, not only what arrived); false means the body was refused
 *   (see `stop`), and nothing more is held.
 *
 * Returns `stop`: for a body refused while arriving, it stops reading and frees what was read,
 * and `done` is never called.
 */
export function readJsonBody(
  req: Request,
  opts: { limitBytes: number; lengthCounted: boolean; hold?: (bytes: number) => boolean },
  done: (err: Error | null, body?: unknown) => void,
): () => void {
  const { limitBytes } = opts;
  const callback = AsyncResource.bind(done);
  const header = req.headers['content-length'];
  const length = header !== undefined && !Number.isNaN(Number(header)) ? Number.parseInt(header, 10) : null;
  let buffer: Buffer | undefined =
    opts.lengthCounted && length !== null && length > 0 && length <= limitBytes
      ? Buffer.allocUnsafeSlow(length)
      : undefined;
  let received = 0;
  let complete = false;

  const stop = () => {
    complete = true;
    req.off('aborted', onAborted);
    req.off('close', stop);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    if (buffer) free(buffer);
    buffer = undefined;
  };
  const fail = (err: Error) => {
    stop();
    req.unpipe();
    req.pause();
    callback(err);
  };
  function onAborted() {
    if (!complete) fail(parserError(400, 'request aborted', 'request.aborted'));
  }
  function onError(err: Error) {
    if (!complete) fail(Object.assign(err, { status: 400, statusCode: 400, expose: true }));
  }
  function onData(chunk: Buffer) {
    if (complete) return;
    received += chunk.length;
    if (received > limitBytes) return fail(parserError(413, 'request entity too large', 'entity.too.large'));
    if (!buffer || received > buffer.length) {
      const size = Math.min(Math.max(received, (buffer?.length ?? 0) * 2), limitBytes);
      if (opts.hold && !opts.hold(size)) return;
      buffer = grown(buffer, received - chunk.length, size);
    }
    chunk.copy(buffer, received - chunk.length);
  }
  function onEnd() {
    if (complete) return;
    if (length !== null && received !== length) {
      return fail(parserError(400, 'request size did not match content length', 'request.size.invalid'));
    }
    const bytes = buffer ?? Buffer.alloc(0);
    const bom = received >= 3 && UTF8_BOM.every((b, i) => bytes[i] === b);
    const text = bytes.toString('utf8', bom ? 3 : 0, received);
    stop();
    let body: unknown;
    try {
      body = text.length === 0 ? {} : JSON.parse(text);
    } catch (e) {
      return callback(
        Object.assign(e as Error, {
          status: 400,
          statusCode: 400,
          expose: true,
          type: 'entity.parse.failed',
        }),
      );
    }
    callback(null, body);
  }

  if (length !== null && length > limitBytes) {
    // capBody refuses such a body before it gets here; as body-parser, without reading it
    complete = true;
    process.nextTick(callback, parserError(413, 'request entity too large', 'entity.too.large'));
    return stop;
  }
  req.on('aborted', onAborted);
  req.on('close', stop);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  return stop;
}

/** A copy of the `used` bytes of `buffer` in a new one of `size` bytes (the old one freed). */
function grown(buffer: Buffer | undefined, used: number, size: number): Buffer {
  const next = Buffer.allocUnsafeSlow(size);
  if (buffer) {
    buffer.copy(next, 0, 0, used);
    free(buffer);
  }
  return next;
}

/** ArrayBuffer.prototype.transfer (Node 22 and later), which detaches a buffer's memory. */
const transfer = (ArrayBuffer.prototype as { transfer?: (this: ArrayBuffer, length?: number) => ArrayBuffer })
  .transfer;

/**
 * Gives a buffer's memory back now rather than at some later garbage collection, by detaching its
 * ArrayBuffer. Only for buffers made here by allocUnsafeSlow (never from Node's shared pool) that
 * nothing else holds a view of. Where transfer is missing (Node before 22) the buffer is only
 * dropped, left to the collector.
 */
function free(buffer: Buffer): void {
  transfer?.call(buffer.buffer as ArrayBuffer, 0);
}

function parserError(status: number, message: string, type: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}
