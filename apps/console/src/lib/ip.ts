const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

/** Whether an address is IPv6, as a URL's host in brackets parses it. */
function isIpv6(address: string): boolean {
  if (!address.includes(':')) return false;
  try {
    return new URL(`http://[${address}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

/**
 * Whether a key's address rule has the shape the API takes: an IPv4 or IPv6 address, or a CIDR
 * block (`203.0.113.0/24`, `2001:db8::/32`). An IPv6 zone index (`%eth0`) is left to the API to judge.
 */
export function isIpRule(rule: string): boolean {
  const [address = '', prefix, ...rest] = rule.trim().split('/');
  if (rest.length > 0) return false;
  const [host = '', zone, ...more] = address.split('%');
  const v6 = isIpv6(host) && more.length === 0 && (zone === undefined || zone.length > 0);
  const max = zone === undefined && IPV4.test(host) ? 32 : v6 ? 128 : 0;
  if (max === 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= max);
}
