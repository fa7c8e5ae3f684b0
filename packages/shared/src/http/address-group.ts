import ipaddr from 'ipaddr.js';

/**
 * The unit a per-address limit counts: an IPv4 address as it is, an IPv6 address by its /64
 * network (`2001:db8:1:2::/64`). One subscriber, host or cloud instance gets a whole /64 and can
 * pick any address in it, so counting IPv6 single addresses would let one client step around
 * every limit. IPv4-mapped IPv6 (`::ffff:1.2.3.4`) counts as its IPv4 address; anything
 * unreadable counts as itself.
 */
export function addressGroup(ip: string): string {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip.replace(/%.*$/, ''));
  } catch {
    return ip;
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
    const parts = v6.parts.slice(0, 4).concat([0, 0, 0, 0]);
    return `${new ipaddr.IPv6(parts).toString()}/64`;
  }
  return addr.toString();
}
