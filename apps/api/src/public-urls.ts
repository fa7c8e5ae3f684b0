import { ApiError } from '@mediagate/shared/errors';
import { assertPublicUrl, isSsrfError, type SsrfPolicy } from '@mediagate/shared/webhooks';

/**
 * Creation-time SSRF check of the URLs of a request that the gateway (or an upstream on its
 * behalf) will fetch or call later. Throws a 400 `invalid_request` naming the first offending
 * parameter. A host name that does not resolve now is accepted; the connect-time check of the
 * SSRF-safe agent judges the address it resolves to when the connection is made.
 *
 * An input (an entry marked `'input'`: an image or audio the upstream fetches) that links to this
 * gateway's own media (`publicBaseUrl` + `/media/...`: a playground upload, a task's video) is not
 * judged: it is the gateway's own content at the address it publishes, which on a development
 * machine or a private deployment is a loopback or private one. Addresses the gateway calls
 * (callbacks) are always judged.
 */
export async function requirePublicUrls(
  policy: SsrfPolicy,
  urls: ReadonlyArray<readonly [param: string, url: string | undefined, kind?: 'input']>,
  publicBaseUrl?: string,
): Promise<void> {
  const results = await Promise.all(
    urls.map(async ([param, url, kind]) => {
      if (url === undefined || (kind === 'input' && isOwnMedia(url, publicBaseUrl))) return null;
      try {
        await assertPublicUrl(policy, url);
        return null;
      } catch (err) {
        if (!isSsrfError(err)) throw err;
        return param;
      }
    }),
  );
  const param = results.find((p) => p !== null);
  if (param) {
    throw new ApiError(
      'invalid_request',
      `${param} must point to a public address; loopback, private, link-local, shared (CGNAT), multicast and reserved addresses are refused.`,
      param,
    );
  }
}

/** Whether `url` is under `publicBaseUrl`'s `/media/` (same scheme, host and port; any path below). */
export function isOwnMedia(url: string, publicBaseUrl: string | undefined): boolean {
  if (!publicBaseUrl) return false;
  try {
    const u = new URL(url);
    const base = new URL(publicBaseUrl);
    // new URL() has resolved dot segments: '/media/../admin' is '/admin' here
    return (
      u.origin === base.origin && u.username === '' && u.password === '' && u.pathname.startsWith('/media/')
    );
  } catch {
    return false;
  }
}
