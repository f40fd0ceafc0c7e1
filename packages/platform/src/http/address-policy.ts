import { BlockList, isIP } from 'node:net';

/**
 * Where outbound calls (webhook deliveries, quote calls) may go (SPEC-DECISIONS W9).
 * `strict` refuses loopback, private, link-local and other non-public addresses;
 * `sandbox` also allows loopback, so a developer can point at localhost.
 */
export type OutboundPolicy = 'strict' | 'sandbox';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  nonPublic.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  nonPublic.addSubnet(net, prefix, 'ipv6');
}

/** `::ffff:10.0.0.1` is 10.0.0.1: judge IPv4-mapped IPv6 addresses by their IPv4 part. */
function unmap(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export function isLoopbackAddress(address: string): boolean {
  const { address: a, family } = unmap(address);
  return loopback.check(a, family);
}

/** Why an address is refused under a policy, or null when it is allowed. */
export function refusalReason(address: string, policy: OutboundPolicy): string | null {
  const { address: a, family } = unmap(address);
  if (isIP(a) === 0) return 'not an IP address';
  if (loopback.check(a, family)) return policy === 'sandbox' ? null : 'loopback address';
  if (nonPublic.check(a, family)) return 'private, link-local or reserved address';
  return null;
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
