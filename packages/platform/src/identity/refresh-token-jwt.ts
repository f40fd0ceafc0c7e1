import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RefreshTokenKey, RefreshTokenKeys } from './refresh-token-key.js';

/** The refresh token's JWS algorithm (spec-notes I4 amended); access and ID tokens stay ES256. */
const REFRESH_TOKEN_ALG = 'HS256';

/**
 * What reading a compact HS256 JWS gave: its payload, `invalid` (malformed, unknown `kid`, wrong
 * `typ`, bad signature), or `not-hs256` when its header names another algorithm (the caller may know
 * that one: refresh tokens signed ES256 before I4 amended).
 */
export type Hs256Reading = { payload: Record<string, unknown> } | 'invalid' | 'not-hs256';

const mac = (key: RefreshTokenKey, signingInput: string) =>
  createHmac('sha256', key.key).update(signingInput).digest('base64url');

/**
 * A compact JWS (RFC 7515 §7.1) signed HS256 with the current refresh-token key: one HMAC, no
 * WebCrypto job. The header is exactly `{alg, typ, kid}`.
 */
export function signHs256(keys: RefreshTokenKeys, typ: string, payload: object): string {
  const header = Buffer.from(JSON.stringify({ alg: REFRESH_TOKEN_ALG, typ, kid: keys.current.kid })).toString('base64url');
  const signingInput = `${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${signingInput}.${mac(keys.current, signingInput)}`;
}

function decodeObject(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Reads a compact JWS signed by {@link signHs256}. Only this exact form is accepted: a header of
 * `alg` HS256, the expected `typ` and a known `kid`, and nothing else (no `crit`, no embedded key);
 * the signature is compared in constant time, and as the base64url text this module writes, so no
 * second spelling of one signature passes. Claims are the caller's to check.
 */
export function verifyHs256(keys: RefreshTokenKeys, typ: string, token: string): Hs256Reading {
  const parts = token.split('.');
  if (parts.length !== 3) return 'invalid';
  const [headerPart, payloadPart, signature] = parts as [string, string, string];
  const header = decodeObject(headerPart);
  if (!header) return 'invalid';
  if (header.alg !== REFRESH_TOKEN_ALG) return 'not-hs256';
  if (Object.keys(header).length !== 3 || header.typ !== typ || typeof header.kid !== 'string') return 'invalid';
  const key = keys.byKid.get(header.kid);
  if (!key) return 'invalid';
  const expected = Buffer.from(mac(key, `${headerPart}.${payloadPart}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  const payload = decodeObject(payloadPart);
  return payload ? { payload } : 'invalid';
}
