import type { ErrorRequestHandler, Request } from 'express';
import type { SimConfig } from './config';
import type { SimState } from './state';
import type { VendorError } from './vendor-errors';

/** The Bearer token of `req`, or '' when there is none. */
export function bearerKey(req: Request): string {
  const header = req.headers.authorization;
  if (!header) return '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match ? match[1]!.trim() : '';
}

/**
 * The caller's key if the sim accepts it; otherwise throws the vendor's authentication error,
 * built by `reject(missing)` (`missing` = no key at all).
 */
export function requireKey(req: Request, state: SimState, reject: (missing: boolean) => VendorError): string {
  const key = bearerKey(req);
  if (!state.acceptsKey(key)) throw reject(key.length === 0);
  return key;
}

/** Base of the media URLs: SIM_PUBLIC_URL, or the loopback address of the port that took the request. */
export function publicBase(req: Request, config: SimConfig): string {
  return config.SIM_PUBLIC_URL ?? `http://127.0.0.1:${req.socket.localPort}`;
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const DATA_IMAGE = /^data:image\/(jpeg|jpg|png|bmp|webp|tiff|gif|heic|heif);base64,/i;

/** What kind of image reference `v` is: a public http(s) URL, a base64 data URL, or neither. */
export function imageRefKind(v: string): 'url' | 'data' | 'invalid' {
  if (DATA_IMAGE.test(v)) return 'data';
  if (!/^https?:\/\//i.test(v)) return 'invalid';
  try {
    const url = new URL(v);
    return url.hostname ? 'url' : 'invalid';
  } catch {
    return 'invalid';
  }
}

/** Decoded size in bytes of a base64 data URL (without decoding it). */
export function dataUrlBytes(v: string): number {
  const b64 = v.slice(v.indexOf(',') + 1);
  return Math.floor((b64.length * 3) / 4);
}

/** Vendor timestamps: `YYYY-MM-DD HH:mm:ss.SSS` in China Standard Time (UTC+8), as DashScope writes them. */
export function dashscopeTime(ms: number): string {
  return new Date(ms + 8 * 3_600_000).toISOString().slice(0, 23).replace('T', ' ');
}

/**
 * An error middleware that runs `count` and passes the error on. Mounted with `router.use(path)` before
 * a route, it sees the requests whose body failed to parse, which never reach the route's handler
 * (Express skips route layers while an error is pending, so it must be `use`, not `post`).
 */
export function countRejected(count: () => void): ErrorRequestHandler {
  return (err, _req, _res, next) => {
    count();
    next(err);
  };
}
