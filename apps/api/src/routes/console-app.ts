import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import expressStaticGzip from 'express-static-gzip';
import type { ApiDeps } from '../deps';

/**
 * Paths that belong to the API, never to the console's pages: an unknown route under them keeps
 * answering the JSON 404 of the error handler.
 */
const API_PREFIXES = [
  '/v1',
  '/console/api',
  '/admin/api',
  '/admin/queues',
  '/payments',
  '/media',
  '/openapi.json',
  '/docs',
  '/healthz',
  '/readyz',
  '/metrics',
];

const isApiPath = (p: string) => API_PREFIXES.some((prefix) => p === prefix || p.startsWith(`${prefix}/`));

/** A browser navigating to a page (not a script or an API client asking for data). */
export const wantsPage = (req: Request) =>
  (req.method === 'GET' || req.method === 'HEAD') && req.accepts(['json', 'html']) === 'html';

export interface ConsolePages {
  /** answers the single page (index.html), whose router shows the page of the address */
  sendIndex: (res: Response) => void;
  /** mounts the assets and the page fallback; call after every API route */
  mount: (app: Express) => void;
}

/**
 * The console's built files, served at / on the API's origin so its HttpOnly session cookie
 * reaches /console/api: hashed assets are cached for a year and sent compressed (brotli or gzip, as
 * the browser accepts), and a browser asking for a page
 * anywhere outside the API's paths (/login, /console/keys, /admin/accounts ...) gets index.html.
 * Null when the console has not been built (nothing is served then).
 */
export function loadConsolePages(deps: Pick<ApiDeps, 'config' | 'logger'>): ConsolePages | null {
  const dir = deps.config.CONSOLE_DIR;
  const indexFile = dir ? path.join(dir, 'index.html') : undefined;
  if (!dir || !indexFile || !existsSync(indexFile)) {
    deps.logger.info({ dir }, 'the console is not built; its pages are not served');
    return null;
  }
  const index = readFileSync(indexFile);
  const sendIndex = (res: Response) => {
    res.status(200).type('html').set('cache-control', 'no-cache').send(index);
  };
  const mount = (app: Express) => {
    // the build's brotli and gzip copies (scripts/compress.mjs) to a browser that accepts them,
    // brotli first; the file itself otherwise. `Vary: Accept-Encoding` keeps caches apart.
    app.use(
      '/assets',
      expressStaticGzip(path.join(dir, 'assets'), {
        enableBrotli: true,
        orderPreference: ['br', 'gzip'],
        index: false,
        serveStatic: { immutable: true, maxAge: '365d', index: false, redirect: false },
      }),
    );
    const staticFiles = express.static(dir, { index: false, redirect: false });
    const pages: RequestHandler = (req, res, next) => {
      // a missing asset is a 404, never the page (a stale page would load HTML as a script)
      if (isApiPath(req.path) || req.path.startsWith('/assets/')) return next();
      if (req.path === '/index.html' || wantsPage(req)) return sendIndex(res);
      return staticFiles(req, res, next);
    };
    app.use(pages);
  };
  return { sendIndex, mount };
}
