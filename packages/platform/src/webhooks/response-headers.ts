import { storableText } from '../core/storable-text.js';

/** At most this many of the receiver's response headers are kept per attempt… */
export const RESPONSE_HEADERS_KEPT = 20;
/** …each value cut to this many characters (names longer than NAME_LIMIT are left out). */
export const RESPONSE_HEADER_VALUE_LIMIT = 256;
const NAME_LIMIT = 64;

/**
 * Headers that carry or set credentials, never stored: a receiver's session
 * cookie or token would otherwise sit in the delivery log for anyone who can
 * read the store's deliveries. Names are matched whole, then by these parts.
 */
const SECRET_NAMES = new Set([
  'set-cookie',
  'set-cookie2',
  'cookie',
  'authorization',
  'proxy-authorization',
  'www-authenticate',
  'proxy-authenticate',
  'authentication-info',
  'proxy-authentication-info',
]);
const SECRET_PARTS = /token|secret|passw|auth|session|cookie|credential|signature|api-?key|csrf|xsrf|jwt|bearer/;

/**
 * The safe, bounded subset of a receiver's answer headers kept in the
 * delivery log (the console's delivery page shows it): from undici's raw
 * list (name, value, name, value…), in the order received, repeated names
 * joined with ", ", credential-like headers left out, at most
 * RESPONSE_HEADERS_KEPT names and RESPONSE_HEADER_VALUE_LIMIT characters a
 * value. Null when there was no answer.
 */
export function keptResponseHeaders(rawHeaders: readonly Buffer[] | null): Record<string, string> | null {
  if (!rawHeaders) return null;
  const kept: Record<string, string> = {};
  let count = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = String(rawHeaders[i]).toLowerCase();
    if (name.length === 0 || name.length > NAME_LIMIT || SECRET_NAMES.has(name) || SECRET_PARTS.test(name)) continue;
    const value = storableText(String(rawHeaders[i + 1]));
    const previous = kept[name];
    if (previous === undefined) {
      if (count === RESPONSE_HEADERS_KEPT) continue;
      count++;
      kept[name] = cut(value);
    } else {
      kept[name] = cut(`${previous}, ${value}`);
    }
  }
  return kept;
}

function cut(value: string): string {
  return value.length > RESPONSE_HEADER_VALUE_LIMIT ? `${value.slice(0, RESPONSE_HEADER_VALUE_LIMIT - 1)}…` : value;
}
