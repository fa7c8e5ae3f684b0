import { readFileSync } from 'node:fs';
import http from 'node:http';

/** One part of a generated form: `bytes` of filler, as a text field or (with `filename`) a file. */
export interface GeneratedPart {
  name: string;
  bytes: number;
  filename?: string;
}

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
  const heads = opts.parts.map((p, i) =>
    Buffer.from(
      `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"` +
        (p.filename ? `; filename="${p.filename}"\r\nContent-Type: application/octet-stream` : '') +
        '\r\n\r\n',
    ),
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const totalBytes =
    heads.reduce((n, h) => n + h.length, 0) + opts.parts.reduce((n, p) => n + p.bytes, 0) + tail.length;
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
        'content-type': `multipart/form-data; boundary=${boundary}`,
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
      for (let i = 0; i < opts.parts.length; i++) {
        if (!(await send(heads[i]!))) return;
        for (let left = opts.parts[i]!.bytes; left > 0; left -= CHUNK.length) {
          if (!(await send(left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left)))) return;
        }
      }
      if (await send(tail)) req.end();
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
