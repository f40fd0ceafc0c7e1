import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { PlatformConfig } from '../core/config.js';

/**
 * Where outbound calls (webhook deliveries, quote calls) may go (spec-notes W9).
 * `strict` refuses every address that is not public unicast;
 * `sandbox` also allows loopback, so a developer can point at localhost.
 */
export type OutboundPolicy = 'strict' | 'sandbox';

/** The policy a platform config implies: strict mode refuses every non-public address. */
export function outboundPolicyOf(config: Pick<PlatformConfig, 'mode'>): OutboundPolicy {
  return config.mode === 'strict' ? 'strict' : 'sandbox';
}

/**
 * The one classification of outbound addresses (spec-notes W9), from ipaddr.js's
 * special-purpose ranges (the IANA IPv4 and IPv6 special-purpose address
 * registries: private, loopback, link-local, CGNAT, TEST-NETs, benchmarking,
 * multicast, broadcast, 6to4, Teredo, NAT64, discard, ORCHID, unique-local, …).
 * Only `unicast` is public. IPv6 is further held to 2000::/3, the only block
 * IANA allocates global unicast from: that refuses the deprecated
 * IPv4-compatible `::/96` and every unallocated block at once. An IPv4-mapped
 * IPv6 address (`::ffff:0:0/96`, dotted or hex) is judged by the IPv4 address
 * it carries. The range name is what a refusal reports.
 */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

export function addressRange(address: string): string | null {
  // node:net is strict about literal forms (no `0x7f.1`, no `127.1`); ipaddr.js then names the range.
  if (isIP(address.replace(/%.*$/, '')) === 0) return null;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (parsed.kind() === 'ipv6' && range === 'unicast' && !parsed.match(IPV6_GLOBAL_UNICAST)) return 'notGlobalUnicast';
  return range;
}

/** Why an address is refused under a policy, or null when it is allowed. */
export function refusalReason(address: string, policy: OutboundPolicy): string | null {
  const range = addressRange(address);
  if (range === null) return 'not an IP address';
  if (range === 'unicast') return null;
  if (range === 'loopback') return policy === 'sandbox' ? null : 'loopback address';
  return `private, link-local or reserved address (${range})`;
}

export class OutboundAddressRefusedError extends Error {
  readonly code = 'ERR_SSRF_REFUSED';
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`refusing to connect to ${host}: ${reason}`);
    this.name = 'OutboundAddressRefusedError';
  }
}
