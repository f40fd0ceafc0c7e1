import ipaddr from 'ipaddr.js';

/** The names Fastify's `trustProxy` (proxy-addr) understands besides addresses and CIDR ranges. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'] as const;

/**
 * `--trust-proxy`: the reverse proxies whose `X-Forwarded-For` is believed,
 * as a comma-separated list of addresses, CIDR ranges and proxy-addr's names
 * (`loopback`, `linklocal`, `uniquelocal`). Behind a proxy every request's
 * socket is the proxy's, so without this the per-address throttles of logins
 * and client authentication count every client as one. "Trust every hop" is
 * not offered: any client could then name its own address and walk past them.
 * Throws an Error naming the entry that is neither.
 */
export function parseTrustedProxies(text: string): string[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if ((PROXY_RANGE_NAMES as readonly string[]).includes(entry)) continue;
    if (entry.includes('/') ? isCidr(entry) : ipaddr.isValid(entry)) continue;
    throw new Error(
      `"${entry}" is not an address, a CIDR range or one of ${PROXY_RANGE_NAMES.join(', ')} (give the proxies' addresses, comma-separated)`,
    );
  }
  return entries;
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}
