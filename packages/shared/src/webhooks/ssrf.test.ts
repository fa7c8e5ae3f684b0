import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import {
  addressRange,
  assertPublicUrl,
  createSsrfPolicy,
  createSsrfSafeAgent,
  isAddressAllowed,
  isPublicAddress,
  isSsrfError,
  parseCidrList,
  type Resolver,
  SsrfError,
  ssrfEnvSchema,
} from './ssrf';

/** A resolver that answers from a table, and fails like getaddrinfo for any other name. */
function tableResolver(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const list = table[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'reserved'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['fec0::1', 'deprecatedSiteLocal'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
    expect(isAddressAllowed(createSsrfPolicy(), address)).toBe(false);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
    expect(isAddressAllowed(createSsrfPolicy(), address)).toBe(true);
  });

  it('opens exactly the ranges of the allow-list, IPv4-mapped forms included', () => {
    const policy = createSsrfPolicy({ allowCidrs: '127.0.0.0/8, ::1' });
    expect(isAddressAllowed(policy, '127.0.0.1')).toBe(true);
    expect(isAddressAllowed(policy, '::1')).toBe(true);
    expect(isAddressAllowed(policy, '[::1]')).toBe(true);
    expect(isAddressAllowed(policy, '::ffff:127.0.0.1')).toBe(true);
    expect(isAddressAllowed(policy, '10.0.0.1')).toBe(false);
    expect(isAddressAllowed(policy, '169.254.169.254')).toBe(false);
    expect(isAddressAllowed(policy, 'not-an-ip')).toBe(false);
  });

  it('parses allow-lists and rejects bad ones in configuration', () => {
    expect(parseCidrList('')).toEqual([]);
    expect(parseCidrList('10.0.0.0/8 192.168.0.1')).toHaveLength(2);
    expect(() => parseCidrList('10.0.0.0/33')).toThrow();
    expect(ssrfEnvSchema.safeParse({ SSRF_ALLOW_CIDRS: 'localhost' }).success).toBe(false);
    expect(ssrfEnvSchema.parse({}).SSRF_ALLOW_CIDRS).toBe('');
  });
});

describe('assertPublicUrl (creation time)', () => {
  const resolve = tableResolver({
    'public.test': ['93.184.216.34'],
    'internal.test': ['10.0.0.7'],
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    'v6local.test': ['fd00::5'],
  });
  const policy = createSsrfPolicy({ resolve });

  it.each([
    'http://127.0.0.1/cb',
    'http://127.1/cb',
    'http://2130706433/cb',
    'http://0x7f000001/cb',
    'http://[::1]:8080/cb',
    'http://[::ffff:127.0.0.1]/cb',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/',
    'http://100.64.1.1/',
    'http://224.0.0.1/',
    'http://0.0.0.0:80/',
    'https://internal.test/hook',
    'https://mixed.test/hook',
    'https://v6local.test/hook',
    'ftp://public.test/file',
    'not a url',
  ])('refuses %s', async (url) => {
    await expect(assertPublicUrl(policy, url)).rejects.toBeInstanceOf(SsrfError);
  });

  it('accepts a name that resolves to public addresses, and a public IP literal', async () => {
    await expect(assertPublicUrl(policy, 'https://public.test/hook')).resolves.toBeUndefined();
    await expect(assertPublicUrl(policy, 'http://93.184.216.34:8080/x')).resolves.toBeUndefined();
  });

  it('leaves a name that does not resolve (or not in time) to the connect-time check', async () => {
    await expect(assertPublicUrl(policy, 'https://nowhere.test/hook')).resolves.toBeUndefined();
    const slow = createSsrfPolicy({ resolve: () => new Promise(() => {}), dnsTimeoutMs: 20 });
    await expect(assertPublicUrl(slow, 'https://slow.test/hook')).resolves.toBeUndefined();
  });

  it('accepts loopback only when the allow-list opens it', async () => {
    const open = createSsrfPolicy({ resolve, allowCidrs: '127.0.0.0/8' });
    await expect(assertPublicUrl(open, 'http://127.0.0.1:9/cb')).resolves.toBeUndefined();
    await expect(assertPublicUrl(open, 'https://internal.test/hook')).rejects.toBeInstanceOf(SsrfError);
  });
});

describe('createSsrfSafeAgent (connect time)', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const agentFor = (resolve: Resolver, allowCidrs = '') =>
    createSsrfSafeAgent(createSsrfPolicy({ resolve, allowCidrs }), {
      connectTimeoutMs: 2_000,
      headersTimeoutMs: 2_000,
      bodyTimeoutMs: 2_000,
    });

  it('refuses a name that resolves to a forbidden address now, although it passed at creation', async () => {
    let answer = '93.184.216.34';
    const resolve: Resolver = async () => [{ address: answer, family: 4 }];
    const policy = createSsrfPolicy({ resolve });
    await assertPublicUrl(policy, `http://rebind.test:${port}/`);
    answer = '127.0.0.1'; // the DNS answer changes after the check (rebinding)
    const agent = agentFor(resolve);
    const before = hits;
    const err = await request(`http://rebind.test:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(isSsrfError(err)).toBe(true);
    expect(hits).toBe(before);
    await agent.close();
  });

  it.each(['127.0.0.1', '[::ffff:127.0.0.1]'])('refuses the IP literal %s', async (host) => {
    const agent = agentFor(tableResolver({}));
    const before = hits;
    const err = await request(`http://${host}:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(isSsrfError(err)).toBe(true);
    expect(hits).toBe(before);
    await agent.close();
  });

  it('refuses a mixed answer whole, even when one address is public', async () => {
    const agent = agentFor(tableResolver({ 'mixed.test': ['93.184.216.34', '127.0.0.1'] }));
    const err = await request(`http://mixed.test:${port}/`, { dispatcher: agent }).catch((e: unknown) => e);
    expect(isSsrfError(err)).toBe(true);
    await agent.close();
  });

  it('connects when the allow-list opens the resolved address', async () => {
    const agent = agentFor(tableResolver({ 'receiver.test': ['127.0.0.1'] }), '127.0.0.0/8');
    const res = await request(`http://receiver.test:${port}/`, { dispatcher: agent });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('ok');
    const literal = await request(`http://127.0.0.1:${port}/`, { dispatcher: agent });
    expect(literal.statusCode).toBe(200);
    await literal.body.dump();
    await agent.close();
  });
});
