import { createHmac, timingSafeEqual } from 'node:crypto';

const ENTRY_PREFIX = 'sha256=';
/** A well-formed entry: the 32-byte digest as hex, either case (as the platform's matcher accepts). */
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
const DIGEST_BYTES = 32;

/**
 * The digests of the `sha256=` entries of an `X-Signature-256` header, as sent
 * (spec, Events, Signature rule 3); entries of another scheme are ignored. A
 * malformed digest is kept: it matches nothing, but it shows the sender signed
 * (ERR_SIGNATURE_MISMATCH, not ERR_SIGNATURE_MISSING).
 *
 * Scans the header once instead of split/trim/filter/map: it runs on every delivery.
 */
export function signatureEntries(header: string): string[] {
  const digests: string[] = [];
  let start = 0;
  while (start <= header.length) {
    let end = header.indexOf(',', start);
    if (end === -1) end = header.length;
    const entry = header.slice(start, end).trim();
    if (entry.startsWith(ENTRY_PREFIX)) digests.push(entry.slice(ENTRY_PREFIX.length));
    start = end + 1;
  }
  return digests;
}

// Both sides of every comparison are written into these two buffers: verification
// is synchronous, so no two calls share them at once, and a fresh Buffer for each
// digest (`digest()`, `Buffer.from(hex)`) was a measurable share of a 1 KiB
// verification (docs/decisions.md D28).
const expected = Buffer.alloc(DIGEST_BYTES);
const received = Buffer.alloc(DIGEST_BYTES);

/**
 * True when any of `digests` equals HMAC-SHA256 of `<timestamp>.<raw body>` keyed
 * with the secret's UTF-8 bytes (spec, Events, Signature; spec-notes W2).
 *
 * Every well-formed entry is compared with `timingSafeEqual` on the 32 raw bytes,
 * with no early exit, so timing reveals neither which entry matched nor where.
 */
export function anyDigestMatches(
  digests: readonly string[],
  secret: string,
  timestamp: string,
  rawBody: string | Uint8Array,
): boolean {
  // A string key is taken as its UTF-8 bytes, the rule of spec-notes W2.
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  // A string body is hashed from the string itself, never copied into a Buffer
  // first. When its UTF-8 length equals its length it is all ASCII, whose Latin-1
  // bytes are its UTF-8 bytes and cost less to produce (measurably, at 1 KiB:
  // docs/decisions.md D28); any other string is hashed as UTF-8, the bytes received.
  if (typeof rawBody === 'string') {
    hmac.update(rawBody, Buffer.byteLength(rawBody, 'utf8') === rawBody.length ? 'latin1' : 'utf8');
  } else {
    hmac.update(rawBody);
  }
  expected.write(hmac.digest('hex'), 'hex');
  let matched = false;
  for (const digest of digests) {
    if (!HEX_DIGEST.test(digest)) continue;
    received.write(digest, 'hex');
    if (timingSafeEqual(expected, received)) matched = true;
  }
  return matched;
}
