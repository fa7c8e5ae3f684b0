import { ApiError } from '@mediagate/shared/errors';
import { assertPublicUrl, isSsrfError, type SsrfPolicy } from '@mediagate/shared/webhooks';

/**
 * Creation-time SSRF check of the URLs of a request that the gateway (or an upstream on its
 * behalf) will fetch or call later. Throws a 400 `invalid_request` naming the first offending
 * parameter. A host name that does not resolve now is accepted; the connect-time check of the
 * SSRF-safe agent judges the address it resolves to when the connection is made.
 */
export async function requirePublicUrls(
  policy: SsrfPolicy,
  urls: ReadonlyArray<readonly [param: string, url: string | undefined]>,
): Promise<void> {
  const results = await Promise.all(
    urls.map(async ([param, url]) => {
      if (url === undefined) return null;
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
