import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { invalidParameter, type PlatformError } from '../core/platform-error.js';
import { type OutboundPolicy, refusalReason } from '../outbound/address-policy.js';

/** Where a quote call goes: the origin to connect to and the request target sent byte for byte. */
export interface QuoteTarget {
  /** `https://seller.example` (scheme, host and, in the sandbox, port). */
  origin: string;
  /** Path and query exactly as configured (`/frete?token=abc`); `/` is added when the URL has no path. */
  path: string;
}

const MAX_QUOTE_URL_LENGTH = 2048;

function rejected(message: string): PlatformError {
  return invalidParameter('url', 'body', message);
}

const AUTHORITY = /^(https?):\/\/([^/?#]*)(.*)$/i;

/**
 * Checks a seller's quote URL (spec "Seller-implemented shipping-quote
 * endpoint"; spec-notes Q1) and splits it so it is called exactly as given.
 * Strict mode: `https://`, no port (not even `:443`), a host the SSRF policy
 * allows (spec-notes W9). Sandbox mode also allows `http://`, ports and
 * loopback. The query string is kept verbatim: the seller may put its token
 * there (spec "Authentication" rule 12). Throws a 422 naming `url`.
 */
export async function checkQuoteUrl(raw: string, policy: OutboundPolicy): Promise<QuoteTarget> {
  if (raw.length > MAX_QUOTE_URL_LENGTH) throw rejected(`must be at most ${MAX_QUOTE_URL_LENGTH} characters`);
  // Printable ASCII only: the request target is sent exactly as stored, so it
  // must already be a valid one (percent-encode anything else).
  if (!/^[\x21-\x7e]+$/.test(raw)) throw rejected('must be printable ASCII without spaces (percent-encode other characters)');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw rejected('must be an absolute URL');
  }
  const parts = AUTHORITY.exec(raw);
  if (!parts) throw rejected(policy === 'strict' ? 'must use the HTTPS scheme' : 'must be an http or https URL');
  const [, , authority = ''] = parts;
  if (policy === 'strict' && url.protocol !== 'https:') throw rejected('must use the HTTPS scheme');
  if (authority.includes('@')) throw rejected('must not contain credentials (put a token in the query string instead)');
  if (raw.includes('#')) throw rejected('must not contain a fragment (it is never sent)');
  // `new URL` drops a default port (`:443`), so look at the text itself.
  const hasPort = /:\d*$/.test(authority.startsWith('[') ? authority.slice(authority.indexOf(']') + 1) : authority);
  if (policy === 'strict' && hasPort) throw rejected('must not contain a port (spec: no server port in the quote URL)');

  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw rejected('must name a host');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else if (policy === 'strict' && (host === 'localhost' || host.endsWith('.localhost'))) {
    throw rejected('points to a refused address (loopback address)');
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw rejected('host name does not resolve');
    }
  }
  for (const address of addresses) {
    const reason = refusalReason(address, policy);
    if (reason) throw rejected(`points to a refused address (${reason})`);
  }
  return quoteTargetOf(raw);
}

/** The call target of a URL that was checked when it was stored (no DNS, no policy: the connector checks again). */
export function quoteTargetOf(raw: string): QuoteTarget {
  const parts = AUTHORITY.exec(raw);
  if (!parts) throw new Error('stored quote URL is not http(s)');
  const [, scheme = '', authority = '', rest = ''] = parts;
  return { origin: `${scheme.toLowerCase()}://${authority}`, path: rest.startsWith('/') ? rest : `/${rest}` };
}
