import { addressGroup } from './address-group';

describe('addressGroup (the unit of per-address limits)', () => {
  it('counts an IPv6 address by its /64, however it is written', () => {
    const group = addressGroup('2001:db8:1:2::1');
    expect(group).toBe('2001:db8:1:2::/64');
    for (const ip of [
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0:0:0:99',
      '2001:db8:1:2::abcd%eth0',
    ]) {
      expect(addressGroup(ip)).toBe(group);
    }
    expect(addressGroup('2001:db8:1:3::1')).not.toBe(group);
  });

  it('counts IPv4 (and IPv4-mapped IPv6) by the address', () => {
    expect(addressGroup('203.0.113.9')).toBe('203.0.113.9');
    expect(addressGroup('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressGroup('203.0.113.10')).not.toBe('203.0.113.9');
  });

  it('keeps what it cannot read as it is', () => {
    expect(addressGroup('unknown')).toBe('unknown');
  });
});
