import { constantTimeEqual } from '../core/hashing.js';

/** `Authorization: Bearer <expected>` (scheme case-insensitive, RFC 9110 §11.1), compared in constant time. */
export function bearerTokenMatches(header: string | undefined, expected: string): boolean {
  const match = /^bearer +(\S+)\s*$/i.exec(header ?? '');
  return match?.[1] !== undefined && constantTimeEqual(match[1], expected);
}
