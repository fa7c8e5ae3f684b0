import { BlockList, isIP } from 'node:net';
import { addressGroup } from '@mediagate/shared/http';
import type { Request } from 'express';

/** An IP or CIDR block as written in a key's allow-list, checked. Null when it is not one. */
export function parseIpRule(
  rule: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, ...rest] = rule.trim().split('/');
  if (rest.length > 0) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The client address without the IPv4-mapped IPv6 wrapping (`::ffff:1.2.3.4` → `1.2.3.4`). */
export function normalizeIp(ip: string | undefined): string {
  if (!ip) return '';
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/** Whether `ip` falls in one of `rules` (IPs or CIDR blocks); malformed rules match nothing. */
export function ipAllowed(ip: string, rules: readonly string[]): boolean {
  const addr = normalizeIp(ip);
  const version = isIP(addr);
  if (version === 0) return false;
  const list = new BlockList();
  for (const rule of rules) {
    const r = parseIpRule(rule);
    if (r) list.addSubnet(r.address, r.prefix, r.family);
  }
  return list.check(addr, version === 4 ? 'ipv4' : 'ipv6');
}

/** The caller's address as the rate limits and logs see it (behind trusted proxies: the client's). */
export const clientIp = (req: Request): string => normalizeIp(req.ip) || 'unknown';

/** What per-address limits count the request by: its address, an IPv6 one by its /64. */
export const clientAddressGroup = (req: Request): string => addressGroup(clientIp(req));
