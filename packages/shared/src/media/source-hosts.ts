/**
 * Which hosts a vendor's media may be fetched from: each channel's own host (or the hosts its
 * configuration lists as `mediaHosts`), which the operator configured and is trusted whatever
 * its address, and the MEDIA_ALLOWED_HOSTS patterns (`host` or `*.domain`), whose addresses must
 * pass the SSRF policy. Anything else is refused before a connection is made.
 */
export class MediaSourceHosts {
  private readonly trusted: Set<string>;

  constructor(
    channels: ReadonlyArray<{ baseUrl: string; mediaHosts?: readonly string[] }>,
    private readonly patterns: readonly string[],
  ) {
    this.trusted = new Set(
      channels
        .flatMap((c) => (c.mediaHosts?.length ? [...c.mediaHosts] : [new URL(c.baseUrl).host]))
        .map((h) => h.toLowerCase()),
    );
  }

  /** `trusted` (a channel's host), `public` (allowed by pattern: address checked), or null (refused). */
  classify(url: string): 'trusted' | 'public' | null {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    if (parsed.username || parsed.password) return null;
    if (this.trusted.has(parsed.host.toLowerCase())) return 'trusted';
    const host = parsed.hostname.toLowerCase();
    for (const p of this.patterns) {
      if (p.startsWith('*.') ? host.endsWith(p.slice(1)) && host.length > p.length - 1 : host === p) {
        return 'public';
      }
    }
    return null;
  }
}
