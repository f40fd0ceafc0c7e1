import { describe, expect, it } from 'vitest';
import { throttleAddress } from './throttle-address.js';

describe('throttleAddress', () => {
  it('an IPv4 address counts alone, and as itself when a dual-stack socket reports it IPv4-mapped', () => {
    expect(throttleAddress('192.0.2.7')).toBe('192.0.2.7');
    expect(throttleAddress('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(throttleAddress('192.0.2.8')).not.toBe(throttleAddress('192.0.2.7'));
  });

  it('every IPv6 address of one /64 counts as that /64, so a host cannot claim an allowance per address', () => {
    const host = throttleAddress('2001:db8:1:2::1');
    expect(host).toBe('2001:db8:1:2::/64');
    expect(throttleAddress('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(host);
    expect(throttleAddress('2001:0db8:0001:0002:0000:0000:0000:0009')).toBe(host);
    expect(throttleAddress('2001:db8:1:3::1')).not.toBe(host);
    expect(throttleAddress('::1')).toBe('::/64');
  });

  it('a value that is not an address is counted as given', () => {
    expect(throttleAddress('unix-socket')).toBe('unix-socket');
  });
});
