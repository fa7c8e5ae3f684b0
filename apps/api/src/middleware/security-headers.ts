import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The Content-Security-Policy of everything the API serves, the console's single-page app
 * included: scripts and fonts from this origin only; styles from this origin and inline (the
 * console's component library writes its CSS into <style> elements at run time); images also as
 * data:, blob: and https: URLs (generated images live on other hosts); media from this origin,
 * https: and blob: (task videos); calls to this origin only; no plugins, no framing, forms post
 * here only. `securityHeaders` adds the plain-http upstream origins to images and media.
 */
const DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  // the console's components (Ant Design) put their generated CSS in <style> elements at run time
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
  mediaSrc: ["'self'", 'https:', 'blob:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  frameAncestors: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  upgradeInsecureRequests: null,
};

/**
 * Security headers on every answer (helmet): the CSP above, nosniff, no framing, no referrer
 * across origins, HSTS (browsers heed it over HTTPS only), a same-origin opener policy, no
 * X-Powered-By.
 *
 * `upstreamBaseUrls`: the vendors' base URLs. Until a video is copied into storage its link
 * redirects to the vendor's result link, which a vendor serves over https (allowed already), but
 * an upstream reached over plain http (the simulator of `pnpm start`, a vendor behind a local
 * proxy) serves its results from its own origin: those origins are added to images and media,
 * so the console plays a video that has just finished.
 */
export function securityHeaders(opts: { upstreamBaseUrls?: readonly string[] } = {}): RequestHandler {
  const plainHttp = plainHttpOrigins(opts.upstreamBaseUrls ?? []);
  const directives = {
    ...DIRECTIVES,
    imgSrc: [...DIRECTIVES.imgSrc, ...plainHttp],
    mediaSrc: [...DIRECTIVES.mediaSrc, ...plainHttp],
  };
  return fixedHeaders(
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives },
      // generated images and videos are embedded from other hosts, and media the gateway serves is
      // embedded by customers' pages; answers with data need a bearer key or a SameSite cookie
      crossOriginEmbedderPolicy: false,
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    }),
  );
}

/**
 * The CSP of the two bundled third-party pages (Swagger UI at /docs, bull-board at
 * /admin/queues), which carry inline styles and start-up scripts: inline allowed there only.
 */
export function bundledUiHeaders(): RequestHandler {
  return fixedHeaders(
    helmet.contentSecurityPolicy({
      useDefaults: false,
      directives: {
        ...DIRECTIVES,
        scriptSrc: ["'self'", "'unsafe-inline'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
      },
    }),
  );
}

/**
 * The headers that `middleware` sets (and removes) on every answer, worked out once and then
 * set as a list: helmet's middlewares compute nothing per request (no directive here is a
 * function of the request), and running its chain of a dozen middlewares per request cost about
 * 1 % of the API's CPU on an image call. Throws when `middleware` does anything else, so a
 * helmet option that depends on the request cannot be precomputed by mistake.
 */
export function fixedHeaders(middleware: RequestHandler): RequestHandler {
  const set: Array<[string, string | number | readonly string[]]> = [];
  const removed: string[] = [];
  let called = false;
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      set.push([name, value]);
      return recorder;
    },
    removeHeader: (name: string) => {
      removed.push(name);
    },
  };
  middleware({} as never, recorder as never, () => {
    called = true;
  });
  if (!called) throw new Error('fixedHeaders: the middleware did not finish at once');
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}

/** The distinct origins of the `http:` URLs among `urls` (https ones are allowed as a scheme). */
export function plainHttpOrigins(urls: readonly string[]): string[] {
  const origins = new Set<string>();
  for (const url of urls) {
    if (!URL.canParse(url)) continue;
    const parsed = new URL(url);
    if (parsed.protocol === 'http:') origins.add(parsed.origin);
  }
  return [...origins];
}
