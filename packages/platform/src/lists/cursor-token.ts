import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { BoundedCache } from '../core/bounded-cache.js';

/**
 * Cursor tokens (spec-notes L4): opaque to the client, signed with an HMAC
 * key derived from the server secret, and bound to the list and to the filters
 * and sorts of the first page. The payload is the keyset position: the sort
 * values and id of the last record returned, so the next page is a range scan
 * on an index and page N costs what page 1 costs.
 *
 * Format: base64url(JSON payload) "." base64url(HMAC-SHA256(key, payload part)).
 */
export interface CursorPosition {
  /** Binding of the list name + canonical filters + sorts (see `bindingOf`). */
  binding: string;
  /** Values of the sort fields, then the id, of the last record of the previous page. */
  after: Array<string | number>;
}

const MAX_TOKEN_LENGTH = 4096;

/**
 * Keys already derived, by secret: a server has one secret (two or three while it rotates), so each list
 * request would otherwise rerun HKDF (visible in a list request's CPU profile).
 */
const derived = new BoundedCache<string, Buffer>(8);

/** The cursor HMAC key, derived from the server secret with HKDF-SHA256. */
export function cursorKey(secretKey: string): Buffer {
  let key = derived.get(secretKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secretKey, 'feira', 'feira/list-cursor/v1', 32));
    derived.set(secretKey, key);
  }
  return key;
}

/**
 * Bindings already computed, by their canonical text: a client pages through one list with the same
 * filters and sorts, so the digest of a cursor page is nearly always one computed before (D77).
 */
const bindings = new BoundedCache<string, string>(1024);

/** A short digest of what the token is bound to; canonical so the order of filters in the URL does not matter. */
export function bindingOf(listName: string, filters: unknown[], sorts: unknown[]): string {
  const canonicalFilters =
    filters.length > 1 ? filters.map((f) => JSON.stringify(f)).sort() : filters.map((f) => JSON.stringify(f));
  const canonical = JSON.stringify([listName, canonicalFilters, sorts]);
  const known = bindings.get(canonical);
  if (known !== undefined) return known;
  const binding = createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
  bindings.set(canonical, binding);
  return binding;
}

export function signCursor(key: Buffer, position: CursorPosition): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, b: position.binding, a: position.after })).toString('base64url');
  const mac = createHmac('sha256', key).update(payload).digest('base64url');
  return `${payload}.${mac}`;
}

/**
 * The position in a token, or null when the token is malformed or its signature matches none of `keys`:
 * the current secret's key first, then those of the secrets still kept for reading (FEIRA_SECRET_KEY_PREVIOUS),
 * so a client paging through a list while the server secret changes is not sent back to page one.
 */
export function verifyCursor(keys: readonly Buffer[], token: string): CursorPosition | null {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const [payload, mac, extra] = token.split('.');
  if (!payload || !mac || extra !== undefined) return null;
  const given = Buffer.from(mac, 'base64url');
  const signedBy = (key: Buffer) => {
    const expected = createHmac('sha256', key).update(payload).digest();
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  if (!keys.some(signedBy)) return null;
  try {
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { v?: unknown; b?: unknown; a?: unknown };
    if (decoded.v !== 1 || typeof decoded.b !== 'string' || !Array.isArray(decoded.a)) return null;
    if (!decoded.a.every((value) => typeof value === 'string' || typeof value === 'number')) return null;
    return { binding: decoded.b, after: decoded.a as Array<string | number> };
  } catch {
    return null;
  }
}
