import ipaddr from 'ipaddr.js';

/**
 * The source a per-address throttle counts (`request.ip`, which is the socket's
 * peer: `trustProxy` is off). An IPv4 address counts alone; an IPv4-mapped IPv6
 * address (`::ffff:192.0.2.1`, what a dual-stack socket reports) counts as its
 * IPv4 address; any other IPv6 address counts as its /64, because a host is
 * routinely given a whole /64 and could otherwise claim 2^64 fresh allowances.
 * Anything that does not parse is counted as given.
 */
export function throttleAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const prefix = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}
