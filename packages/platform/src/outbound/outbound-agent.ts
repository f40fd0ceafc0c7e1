import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import * as tls from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { OutboundAddressRefusedError, type OutboundPolicy, refusalReason } from './address-policy.js';

export interface OutboundAgentOptions {
  policy: OutboundPolicy;
  /**
   * Extra trusted CA certificates (PEM): `--outbound-ca`, the sandbox's local CA, a test CA. They are
   * added to what Node trusts by default (`defaultTrustedCertificates`), never instead of it.
   */
  ca?: string | string[];
  /** Maximum sockets per origin, so one slow receiver cannot take every connection. */
  connectionsPerOrigin?: number;
  keepAliveTimeoutMs?: number;
}

/**
 * The one outbound HTTP client (webhook deliveries, quote calls): a keep-alive
 * undici Agent whose connector refuses addresses the policy forbids, both when
 * DNS answers and on the socket actually connected (so DNS rebinding and IP
 * literals are caught too).
 */
export function createOutboundAgent(options: OutboundAgentOptions): Agent {
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      for (const entry of list) {
        const reason = refusalReason(entry.address, options.policy);
        if (reason) return callback(new OutboundAddressRefusedError(hostname, reason), '', 0);
      }
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`no address for ${hostname}`), '', 0);
      return callback(null, first.address, first.family);
    });
  };

  const ca = options.ca ? (Array.isArray(options.ca) ? options.ca : [options.ca]) : undefined;
  const base = buildConnector({
    lookup: guardedLookup,
    // One secure context for every connection: passing `ca` per connect would make Node rebuild the whole
    // certificate store each time, CPU that grows with the connection rate (docs/decisions.md D3). It starts
    // from what Node trusts by default, which a `ca` list would otherwise replace (docs/decisions.md D1).
    ...(ca ? { secureContext: tls.createSecureContext({ ca: [...defaultTrustedCertificates(), ...ca] }) } : {}),
  } as buildConnector.BuildOptions);

  const connect: buildConnector.connector = (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const reason = refusalReason(host, options.policy);
      if (reason) return callback(new OutboundAddressRefusedError(host, reason), null);
    }
    return base(connectOptions, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('connect failed'), null);
      const remote = (socket as Socket).remoteAddress;
      const reason = remote ? refusalReason(remote, options.policy) : null;
      if (reason) {
        socket.destroy();
        return callback(new OutboundAddressRefusedError(host, reason), null);
      }
      return callback(null, socket);
    });
  };

  return new Agent({
    connect,
    connections: options.connectionsPerOrigin ?? 32,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    pipelining: 1,
  });
}

/** One PEM certificate block, as `NODE_EXTRA_CA_CERTS` files and CA bundles hold them. */
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * What Node trusts when nobody passes `ca`: its bundled roots, the certificates
 * of `NODE_EXTRA_CA_CERTS` (a company CA, mkcert's root) and, where Node was
 * asked to (`--use-system-ca`), the operating system's store. Giving
 * `createSecureContext` a `ca` replaces that default, so a context with extra
 * CAs must start from this list or it silently stops trusting the user's own
 * (docs/decisions.md D1).
 *
 * Node 22.15 and later say it themselves (`tls.getCACertificates('default')`);
 * on older versions the bundled roots plus the file Node itself read at start.
 */
function defaultTrustedCertificates(): string[] {
  const getCACertificates = (tls as { getCACertificates?: (type?: string) => string[] }).getCACertificates;
  if (typeof getCACertificates === 'function') return getCACertificates('default');
  return [...tls.rootCertificates, ...extraCertificates(process.env.NODE_EXTRA_CA_CERTS)];
}

/** The certificates of a `NODE_EXTRA_CA_CERTS` file; none when it is unset or unreadable (Node warns about that at start). */
function extraCertificates(file: string | undefined): string[] {
  if (!file) return [];
  try {
    return readFileSync(file, 'utf8').match(PEM_CERTIFICATE) ?? [];
  } catch {
    return [];
  }
}
