import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The Content-Security-Policy of everything the API serves, the console's single-page app
 * included: scripts and fonts from this origin only; styles from this origin and inline (the
 * console's component library writes its CSS into <style> elements at run time); images also as
 * data:, blob: and https: URLs (generated images live on other hosts); media from this origin,
 * https: and blob: (task videos); calls to this origin only; no plugins, no framing, forms post
 * here only.
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
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: DIRECTIVES },
    // generated images and videos are embedded from other hosts, and media the gateway serves is
    // embedded by customers' pages; answers with data need a bearer key or a SameSite cookie
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
}

/**
 * The CSP of the two bundled third-party pages (Swagger UI at /docs, bull-board at
 * /admin/queues), which carry inline styles and start-up scripts: inline allowed there only.
 */
export function bundledUiHeaders(): RequestHandler {
  return helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      ...DIRECTIVES,
      scriptSrc: ["'self'", "'unsafe-inline'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
    },
  });
}
