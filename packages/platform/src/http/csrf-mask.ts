import { timingSafeEqual } from 'node:crypto';
import type { Random } from '../core/random.js';

/**
 * The one place a CSRF token is masked for a page and unmasked for its check
 * (the BREACH defence, D98). The session's token stays the same between
 * requests (a double-submit cookie), so a page that printed it verbatim next to
 * reflected input (a language link, a search box) would let a compression
 * oracle guess it byte by byte. Each response instead carries `pad ‖ token ⊕ pad`
 * with a fresh random pad, base64url: the same token is different bytes on every
 * page, so compression finds nothing to match a guess against. The check
 * unmasks and compares in constant time.
 *
 * A token printed verbatim (a page rendered before masking) is refused: the
 * forms that post one answer a refused token as an expired page and show the
 * form again with a masked token, so nobody is locked out.
 */

/** Bytes of the session's CSRF token (login-session.ts makes it from the injected randomness). */
export const CSRF_TOKEN_BYTES = 32;
/** Characters of a masked token: base64url of pad and masked token, without padding. */
export const MASKED_CSRF_LENGTH = Math.ceil(((CSRF_TOKEN_BYTES * 2) / 3) * 4);

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] as number) ^ (b[i] as number);
  return out;
}

/** The session token (base64url of {@link CSRF_TOKEN_BYTES} bytes) masked with a fresh pad: different on every call. */
export function maskCsrfToken(token: string, random: Random): string {
  const raw = Buffer.from(token, 'base64url');
  const pad = random.bytes(raw.length);
  return Buffer.concat([pad, xor(raw, pad)]).toString('base64url');
}

/** The session token a masked one carries, or null when it is not one (wrong length or alphabet). */
function unmaskCsrfToken(masked: string): Buffer | null {
  if (masked.length !== MASKED_CSRF_LENGTH || !BASE64URL.test(masked)) return null;
  const bytes = Buffer.from(masked, 'base64url');
  if (bytes.length !== CSRF_TOKEN_BYTES * 2) return null;
  return xor(bytes.subarray(CSRF_TOKEN_BYTES), bytes.subarray(0, CSRF_TOKEN_BYTES));
}

/** Whether a submitted (masked) token carries the session's token; compared in constant time. */
export function maskedCsrfMatches(submitted: unknown, sessionToken: string | null): boolean {
  if (typeof submitted !== 'string' || sessionToken === null) return false;
  const unmasked = unmaskCsrfToken(submitted);
  const expected = Buffer.from(sessionToken, 'base64url');
  return unmasked !== null && expected.length === CSRF_TOKEN_BYTES && timingSafeEqual(unmasked, expected);
}
