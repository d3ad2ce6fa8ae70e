import { describe, expect, it } from 'vitest';
import { addressBlock } from './client-address.ts';

describe('addressBlock', () => {
  it('keeps an IPv4 address, and reads an IPv4-mapped IPv6 one as IPv4', () => {
    expect(addressBlock('203.0.113.7')).toBe('203.0.113.7');
    for (const mapped of ['::ffff:203.0.113.7', '::ffff:cb00:7107', '0:0:0:0:0:ffff:203.0.113.7', '::FFFF:CB00:7107'])
      expect(addressBlock(mapped), mapped).toBe('203.0.113.7');
    // Not the mapped block: an IPv6 address like any other.
    expect(addressBlock('::ffff:0:203.0.113.7')).toBe('0:0:0:0::/64');
    expect(addressBlock(null)).toBeNull();
  });

  it('gives every address of one IPv6 /64 the same block, whatever its spelling', () => {
    const block = '2001:db8:1:2::/64';
    for (const ip of [
      '2001:db8:1:2::1',
      '2001:db8:1:2::3',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:DB8:1:2:0:0:0:9',
      '2001:db8:1:2::1%eth0',
    ])
      expect(addressBlock(ip), ip).toBe(block);
    expect(addressBlock('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressBlock('::1')).toBe('0:0:0:0::/64');
    expect(addressBlock('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(addressBlock('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
  });
});
