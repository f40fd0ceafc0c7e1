import { constantTimeEqual } from '../core/hashing.js';

/**
 * RFC 6750 §2.1: `credentials = "Bearer" 1*SP b64token`, where b64token is RFC 9110 §11.2's token68
 * (letters, digits, `-._~+/`, then any `=` padding). RFC 9110 §11.1: the scheme name is case-insensitive.
 * Node's HTTP parser has already dropped the whitespace around the field value.
 */
const BEARER_CREDENTIALS = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The token of an `Authorization: Bearer <token>` header, or undefined when the
 * header is absent, names another scheme or is malformed. The one parser of
 * bearer credentials: access tokens, the admin token and the metrics token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER_CREDENTIALS.exec(header)?.[1];
}

/** `Authorization: Bearer <expected>`, compared in constant time (the expected value is a secret). */
export function bearerTokenMatches(header: string | undefined, expected: string): boolean {
  const token = bearerToken(header);
  return token !== undefined && constantTimeEqual(token, expected);
}
