import { readFileSync } from 'node:fs';
import http from 'node:http';

/**
 * One part of a generated form: `bytes` of filler, as a text field or (with `filename`) a file;
 * or a text field's `value` (then `bytes` is left out).
 */
export type GeneratedPart = { name: string; filename?: string } & (
  | { bytes: number; value?: undefined }
  | { value: string; bytes?: undefined }
);

export interface StreamedFormResult {
  /** the answer's status, or null when the connection ended without one */
  status: number | null;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** bytes of the body written before the server answered or closed the connection */
  sentBytes: number;
  totalBytes: number;
  error?: string;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/** A piece of a generated body: bytes sent as they are, or `{ bytes }` of filler ('a', valid base64 too). */
export type BodyPiece = Buffer | string | { bytes: number };

/**
 * POSTs a multipart form whose parts are generated while they are written (the test process
 * never holds them), honouring back-pressure, and stops writing once the server answers or
 * closes the connection: `sentBytes` says how much of the body the server let in. With
 * `declareLength` the total is sent as Content-Length, otherwise the body is chunked.
 */
export function sendStreamedForm(
  url: string,
  opts: {
    parts: GeneratedPart[];
    headers?: Record<string, string>;
    method?: string;
    declareLength?: boolean;
    timeoutMs?: number;
  },
): Promise<StreamedFormResult> {
  const boundary = `----mgform${Math.random().toString(16).slice(2)}`;
  const pieces: BodyPiece[] = opts.parts.flatMap((p, i) => [
    `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"` +
      (p.filename ? `; filename="${p.filename}"\r\nContent-Type: application/octet-stream` : '') +
      '\r\n\r\n',
    p.value === undefined ? { bytes: p.bytes } : p.value,
  ]);
  pieces.push(`\r\n--${boundary}--\r\n`);
  return sendStreamedBody(url, { ...opts, pieces, contentType: `multipart/form-data; boundary=${boundary}` });
}

/**
 * POSTs a body made of `pieces`, filler generated while it is written (the test process never
 * holds it), honouring back-pressure, and stops writing once the server answers or closes the
 * connection: `sentBytes` says how much of the body the server let in. With `declareLength` the
 * total is sent as Content-Length, otherwise the body is chunked.
 */
export function sendStreamedBody(
  url: string,
  opts: {
    pieces: BodyPiece[];
    contentType: string;
    headers?: Record<string, string>;
    method?: string;
    declareLength?: boolean;
    timeoutMs?: number;
  },
): Promise<StreamedFormResult> {
  const pieces = opts.pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p));
  const totalBytes = pieces.reduce((n, p) => n + (Buffer.isBuffer(p) ? p.length : p.bytes), 0);
  return new Promise((resolve) => {
    let sentBytes = 0;
    let answered = false;
    let finished = false;
    const result: StreamedFormResult = { status: null, headers: {}, body: '', sentBytes: 0, totalBytes };
    const finish = (error?: string) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      result.sentBytes = sentBytes;
      if (error && result.status === null) result.error = error;
      req.destroy();
      resolve(result);
    };
    const req = http.request(url, {
      method: opts.method ?? 'POST',
      headers: {
        'content-type': opts.contentType,
        ...(opts.declareLength ? { 'content-length': String(totalBytes) } : {}),
        ...opts.headers,
      },
    });
    const timer = setTimeout(() => finish('timed out'), opts.timeoutMs ?? 60_000);
    req.on('response', (res) => {
      answered = true;
      result.status = res.statusCode ?? null;
      result.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        result.body += d;
      });
      res.on('end', () => finish());
      res.on('error', (e) => finish(e.message));
    });
    req.on('error', (e) => {
      // the server may close while the answer is still being read; give it a moment to arrive
      if (!answered) setTimeout(() => finish(e.message), 200);
    });
    const write = async () => {
      const send = (b: Buffer) =>
        new Promise<boolean>((ok) => {
          if (answered || finished || req.destroyed) return ok(false);
          sentBytes += b.length;
          if (req.write(b)) return ok(true);
          const go = () => {
            req.off('close', stop);
            ok(true);
          };
          const stop = () => {
            req.off('drain', go);
            ok(false);
          };
          req.once('drain', go);
          req.once('close', stop);
        });
      for (const piece of pieces) {
        if (Buffer.isBuffer(piece)) {
          if (!(await send(piece))) return;
          continue;
        }
        for (let left = piece.bytes; left > 0; left -= CHUNK.length) {
          if (!(await send(left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left)))) return;
        }
      }
      req.end();
    };
    void write();
  });
}

/** A process's resident memory now and at its peak (bytes), from /proc (Linux). */
export function processMemory(pid: number): { rssBytes: number; peakRssBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssBytes: kb('VmRSS') * 1024, peakRssBytes: kb('VmHWM') * 1024 };
}
