import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { PlatformError } from '../core/platform-error.js';
import { type RefusalCode, type RefusalValues, refuseField } from '../core/refusals.js';
import { type OutboundPolicy, refusalReason } from '../outbound/address-policy.js';

/** Where a quote call goes: the origin to connect to and the request target sent byte for byte. */
export interface QuoteTarget {
  /** `https://seller.example` (scheme, host and, in the sandbox, port). */
  origin: string;
  /** Path and query exactly as configured (`/frete?token=abc`); `/` is added when the URL has no path. */
  path: string;
}

const MAX_QUOTE_URL_LENGTH = 2048;

function rejected<C extends RefusalCode>(code: C, ...values: RefusalValues<C>): PlatformError {
  return refuseField(code, 'url', 'body', ...values);
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
  if (raw.length > MAX_QUOTE_URL_LENGTH) throw rejected('SHIPPING_QUOTE_URL_TOO_LONG', { max: MAX_QUOTE_URL_LENGTH });
  // Printable ASCII only: the request target is sent exactly as stored, so it
  // must already be a valid one (percent-encode anything else).
  if (!/^[\x21-\x7e]+$/.test(raw)) throw rejected('SHIPPING_QUOTE_URL_NOT_ASCII');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw rejected('SHIPPING_QUOTE_URL_NOT_ABSOLUTE');
  }
  const parts = AUTHORITY.exec(raw);
  if (!parts) throw rejected(policy === 'strict' ? 'SHIPPING_QUOTE_URL_NOT_HTTPS' : 'SHIPPING_QUOTE_URL_NOT_HTTP');
  const [, , authority = ''] = parts;
  if (policy === 'strict' && url.protocol !== 'https:') throw rejected('SHIPPING_QUOTE_URL_NOT_HTTPS');
  if (authority.includes('@')) throw rejected('SHIPPING_QUOTE_URL_CREDENTIALS');
  if (raw.includes('#')) throw rejected('SHIPPING_QUOTE_URL_FRAGMENT');
  // `new URL` drops a default port (`:443`), so look at the text itself.
  const hasPort = /:\d*$/.test(authority.startsWith('[') ? authority.slice(authority.indexOf(']') + 1) : authority);
  if (policy === 'strict' && hasPort) throw rejected('SHIPPING_QUOTE_URL_PORT');

  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw rejected('SHIPPING_QUOTE_URL_NO_HOST');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else if (policy === 'strict' && (host === 'localhost' || host.endsWith('.localhost'))) {
    throw rejected('SHIPPING_QUOTE_URL_ADDRESS_REFUSED', { reason: 'loopback address' });
  } else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw rejected('SHIPPING_QUOTE_URL_UNRESOLVED');
    }
  }
  for (const address of addresses) {
    const reason = refusalReason(address, policy);
    if (reason) throw rejected('SHIPPING_QUOTE_URL_ADDRESS_REFUSED', { reason });
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
