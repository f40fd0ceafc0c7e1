import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { addressRange, refusalReason } from './address-policy.js';
import { createOutboundAgent } from './outbound-agent.js';

// spec-notes W9: every special-purpose range of the IANA IPv4 and IPv6 registries is refused in strict mode.
const REFUSED: Array<[string, string]> = [
  ['0.0.0.0', 'this network 0.0.0.0/8'],
  ['10.1.2.3', 'private 10/8'],
  ['100.64.0.1', 'CGNAT 100.64/10'],
  ['127.0.0.1', 'loopback'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['172.16.0.1', 'private 172.16/12'],
  ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
  ['192.0.2.10', 'TEST-NET-1'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.1.1', 'private 192.168/16'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::7f00:1', 'IPv4-compatible ::/96'],
  ['::10.0.0.1', 'IPv4-compatible ::/96, dotted'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local'],
  ['::ffff:0:a00:1', 'IPv4-translated ::ffff:0:0:0/96'],
  ['64:ff9b::7f00:1', 'NAT64 64:ff9b::/96'],
  ['64:ff9b:1::a00:1', 'local NAT64 64:ff9b:1::/48'],
  ['100::1', 'discard-only 100::/64'],
  ['2001::1', 'Teredo 2001::/32'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['2001:10::1', 'ORCHID'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2002:7f00:1::1', '6to4 2002::/16'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['5f00::1', 'segment routing 5f00::/16'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd12:3456::1', 'unique local fd00::/8'],
  ['fe80::1', 'link-local'],
  ['fec0::1', 'deprecated site-local'],
  ['ff02::1', 'multicast'],
  ['4000::1', 'outside global unicast 2000::/3'],
];
const ALLOWED = ['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e', '::ffff:8.8.8.8'];

describe('outbound address policy (spec-notes W9)', () => {
  it.each(REFUSED)('spec-notes W9: strict mode refuses %s (%s)', (address) => {
    expect(refusalReason(address, 'strict')).toMatch(/address/);
  });

  it.each(ALLOWED)('spec-notes W9: strict mode allows the public unicast address %s', (address) => {
    expect(refusalReason(address, 'strict')).toBeNull();
  });

  it('spec-notes W9: sandbox mode allows loopback (any form) and nothing else that strict refuses', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(refusalReason(address, 'sandbox'), address).toBeNull();
    }
    for (const [address] of REFUSED.filter(([a]) => addressRange(a) !== 'loopback')) {
      expect(refusalReason(address, 'sandbox'), address).not.toBeNull();
    }
  });

  it('spec-notes W9: host names and non-standard IPv4 forms are not addresses', () => {
    for (const value of ['localhost', '0x7f.1', '127.1', '2130706433', '']) {
      expect(refusalReason(value, 'strict'), value).toBe('not an IP address');
    }
  });

  it('spec-notes W9: the outbound agent refuses to connect to a special-purpose literal address in strict mode', async () => {
    const agent = createOutboundAgent({ policy: 'strict' });
    try {
      for (const url of [
        'http://[::ffff:7f00:1]:9/',
        'http://[64:ff9b::7f00:1]:9/',
        'http://[2002:7f00:1::1]:9/',
        'http://192.0.2.1:9/',
      ]) {
        await expect(request(url, { dispatcher: agent }), url).rejects.toMatchObject({ code: 'ERR_SSRF_REFUSED' });
      }
    } finally {
      await agent.close();
    }
  });
});
