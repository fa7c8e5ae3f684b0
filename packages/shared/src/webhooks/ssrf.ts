import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import { z } from 'zod';
import { intFromEnv } from '../config/env';
import { LruCache } from '../lru';
import { withTimeout } from '../timeout';

/**
 * SSRF guard for every URL the gateway itself connects to on a client's behalf (callbacks, image
 * URLs). Only public unicast addresses are allowed: loopback, private (RFC 1918, IPv6 ULA),
 * link-local (169.254.0.0/16 with the cloud metadata address, fe80::/10), CGNAT, multicast,
 * broadcast, unspecified, documentation, benchmarking and every other special-purpose range are
 * refused, in IPv4 and IPv6; an IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 * An explicit allow-list (configuration) opens chosen ranges for development and tests.
 *
 * The check runs twice: when a URL is accepted (`assertPublicUrl`, a fast answer for the client)
 * and again at connect time against the address actually resolved (`createSsrfSafeAgent`), so a
 * DNS answer that changes between the two (rebinding) cannot reach a forbidden address.
 */

/** Error code on every SSRF refusal, also when undici wraps the error. */
export const SSRF_ERROR_CODE = 'ERR_SSRF_BLOCKED';

export class SsrfError extends Error {
  readonly code = SSRF_ERROR_CODE;
  constructor(
    message: string,
    readonly hostname?: string,
    readonly address?: string,
  ) {
    super(message);
    this.name = 'SsrfError';
  }
}

/** True when `err` (or an error it wraps) is an SSRF refusal. */
export function isSsrfError(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; i++) {
    if (e instanceof SsrfError || e.code === SSRF_ERROR_CODE) return true;
    e = e.cause as typeof e;
  }
  return false;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Resolves a host name to all its addresses; tests inject their own. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface SsrfPolicy {
  /** ranges opened despite being non-public */
  readonly allow: readonly Cidr[];
  readonly resolve: Resolver;
  /** how long the creation-time check waits for DNS before leaving the decision to connect time */
  readonly dnsTimeoutMs: number;
  /**
   * Creation-time answers by host name (a minute; a failure or timeout 30 s), and the lookups under
   * way, so a burst of creates naming one host costs one lookup, not one each. The connect-time
   * check always resolves afresh.
   */
  readonly dnsCache: LruCache<string, Promise<ResolvedAddress[] | null>>;
}

/** Environment variables of the guard; apps extend their schema with it. */
export const ssrfEnvSchema = z.object({
  /** CIDRs (or single addresses) opened despite being non-public, comma-separated; empty = none */
  SSRF_ALLOW_CIDRS: z
    .string()
    .default('')
    .refine(
      (s) => {
        try {
          parseCidrList(s);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must be a comma-separated list of CIDRs or IP addresses' },
    ),
  SSRF_DNS_TIMEOUT_MS: intFromEnv(2_000, 1),
});

/** Parses "127.0.0.0/8, ::1" into ranges; a bare address is a /32 or /128. Throws on a bad entry. */
export function parseCidrList(list: string | readonly string[]): Cidr[] {
  const items = (typeof list === 'string' ? list.split(/[\s,]+/) : list).map((s) => s.trim()).filter(Boolean);
  return items.map((item) => {
    if (item.includes('/')) return ipaddr.parseCIDR(item);
    const addr = ipaddr.parse(item);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128] as Cidr;
  });
}

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Builds a policy; defaults: nothing opened, the system resolver, 2 s DNS budget at creation. */
export function createSsrfPolicy(
  opts: { allowCidrs?: string | readonly string[]; resolve?: Resolver; dnsTimeoutMs?: number } = {},
): SsrfPolicy {
  return {
    allow: parseCidrList(opts.allowCidrs ?? ''),
    resolve: opts.resolve ?? systemResolver,
    dnsTimeoutMs: opts.dnsTimeoutMs ?? 2_000,
    dnsCache: new LruCache(10_000, 60_000),
  };
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * The special-purpose range an address belongs to, or 'unicast' for a public one. IPv4-mapped
 * IPv6 addresses are classified as their IPv4 address; IPv6 outside 2000::/3 (where every public
 * address lives; this also catches the deprecated IPv4-compatible ::a.b.c.d) is 'reserved'.
 * Throws on a string that is not an IP address.
 */
export function addressRange(address: string): string {
  let addr = ipaddr.parse(stripBrackets(address));
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  const range = addr.range();
  if (range !== 'unicast') return range;
  if (addr.kind() === 'ipv6' && !addr.match(GLOBAL_UNICAST_V6)) return 'reserved';
  return 'unicast';
}

/** True for a public unicast address (see addressRange). */
export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}

function inAllowList(policy: SsrfPolicy, address: string): boolean {
  if (policy.allow.length === 0) return false;
  const addr = ipaddr.parse(address);
  const forms: Array<ipaddr.IPv4 | ipaddr.IPv6> = [addr];
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    forms.push((addr as ipaddr.IPv6).toIPv4Address());
  }
  return forms.some((a) => policy.allow.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits)));
}

/** True when the policy lets a connection reach `address`: public, or opened by the allow-list. */
export function isAddressAllowed(policy: SsrfPolicy, address: string): boolean {
  const bare = stripBrackets(address);
  if (!ipaddr.isValid(bare)) return false;
  return isPublicAddress(bare) || inAllowList(policy, bare);
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function refuse(hostname: string, address: string): SsrfError {
  const range = ipaddr.isValid(address) ? addressRange(address) : 'invalid';
  return new SsrfError(
    `${hostname} resolves to a non-public address (${range}); only public addresses may be reached`,
    hostname,
    address,
  );
}

/** The addresses of `hostname`, or null when it does not resolve within the policy's DNS budget. */
function resolveWithin(policy: SsrfPolicy, hostname: string): Promise<ResolvedAddress[] | null> {
  const key = hostname.toLowerCase();
  const known = policy.dnsCache.get(key);
  if (known) return known;
  const answer = lookupWithin(policy, key);
  policy.dnsCache.set(key, answer);
  // an unresolved name is asked again sooner than a resolved one
  answer.then((r) => {
    if (r === null) setTimeout(() => policy.dnsCache.delete(key), 30_000).unref();
  });
  return answer;
}

/** The name's addresses, or null when it does not resolve (or not within the policy's DNS bound). */
function lookupWithin(policy: SsrfPolicy, hostname: string): Promise<ResolvedAddress[] | null> {
  return withTimeout(policy.resolve(hostname), policy.dnsTimeoutMs, { what: 'DNS lookup' }).catch(() => null);
}

/**
 * Creation-time check of a URL the gateway will connect to later. Throws SsrfError when the URL
 * is not http(s), when its host is an IP literal outside the policy, or when its host name
 * resolves (now) to any address outside the policy. A host name that does not resolve in time,
 * or at all, is accepted: the connect-time check decides against whatever it resolves to then,
 * and refusing it would make acceptance depend on the gateway's own DNS health.
 */
export async function assertPublicUrl(policy: SsrfPolicy, url: string): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SsrfError('not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new SsrfError('only http and https URLs are allowed');
  }
  const host = stripBrackets(parsed.hostname);
  if (isIP(host)) {
    if (!isAddressAllowed(policy, host)) throw refuse(host, host);
    return;
  }
  const resolved = await resolveWithin(policy, host);
  if (resolved === null) return;
  for (const { address } of resolved) {
    if (!isAddressAllowed(policy, address)) throw refuse(host, address);
  }
}

/**
 * A `lookup` for net/tls.connect that resolves through the policy's resolver and fails with
 * SsrfError if any resolved address is outside the policy (a mixed answer is refused whole).
 * Honours `all: true` (Node's happy-eyeballs path) and the requested family.
 */
export function createSsrfLookup(policy: SsrfPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options === 'object' ? options.family : options;
    policy
      .resolve(hostname)
      .then((addresses) => {
        const wanted =
          family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
        if (wanted.length === 0) {
          const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
            code: 'ENOTFOUND',
            hostname,
          });
          return callback(err, '', 0);
        }
        const bad = wanted.find((a) => !isAddressAllowed(policy, a.address));
        if (bad) return callback(refuse(hostname, bad.address), '', 0);
        if (typeof options === 'object' && options.all) {
          return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, wanted);
        }
        callback(null, wanted[0]!.address, wanted[0]!.family);
      })
      .catch((err: unknown) => callback(err as NodeJS.ErrnoException, '', 0));
  };
}

/**
 * An undici connector that applies the policy at connect time: IP-literal hosts are checked
 * directly (Node skips `lookup` for them), host names through the guarded lookup, so the socket
 * only ever opens to an address that passed the check.
 */
export function createSsrfSafeConnector(
  policy: SsrfPolicy,
  opts: { connectTimeoutMs: number },
): buildConnector.connector {
  const base = buildConnector({ timeout: opts.connectTimeoutMs, lookup: createSsrfLookup(policy) });
  return (options, callback) => {
    const host = stripBrackets(options.hostname);
    if (isIP(host) && !isAddressAllowed(policy, host)) {
      callback(refuse(host, host), null);
      return;
    }
    base(options, callback);
  };
}

/**
 * An undici Agent whose every connection passes the SSRF policy, with the given timeouts. It
 * follows no redirects (undici's `request` never does without an interceptor). Share one per process.
 */
export function createSsrfSafeAgent(
  policy: SsrfPolicy,
  opts: { connectTimeoutMs: number; headersTimeoutMs: number; bodyTimeoutMs: number; connections?: number },
): Agent {
  return new Agent({
    connect: createSsrfSafeConnector(policy, { connectTimeoutMs: opts.connectTimeoutMs }),
    headersTimeout: opts.headersTimeoutMs,
    bodyTimeout: opts.bodyTimeoutMs,
    connections: opts.connections ?? 64,
    keepAliveTimeout: 4_000,
  });
}
