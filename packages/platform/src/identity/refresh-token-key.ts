import { hkdfSync } from 'node:crypto';

/**
 * The symmetric key that signs refresh tokens (spec-notes I4 amended): HMAC-SHA256 (HS256), derived
 * with HKDF-SHA256 (RFC 5869) from the server secret, so no key is stored and every process of one
 * deployment derives the same one. Only Feira reads a refresh token, so nothing else needs a key to
 * verify it: the key is never stored, logged or published (the JWKS holds the ES256 keys only).
 *
 * Each key has a `kid`, derived from the same secret by a separate HKDF output (it reveals nothing of
 * the key), so a token names the key that signed it. This is the one place the key is derived: a
 * rotation of the server secret passes the new secret first and the secrets still accepted after it.
 */
export interface RefreshTokenKey {
  kid: string;
  /** 32 bytes: the HMAC key. */
  key: Buffer;
}

export interface RefreshTokenKeys {
  /** The key that signs new refresh tokens. */
  current: RefreshTokenKey;
  /** Every key a refresh token is accepted under, by `kid`, the current one included. */
  byKid: ReadonlyMap<string, RefreshTokenKey>;
}

/** Bumping the version derives other keys: every refresh token signed before it is refused. */
const KEY_INFO = 'feira/refresh-token/hs256/v1';
const KID_INFO = 'feira/refresh-token/kid/v1';
const SALT = 'feira';

function deriveKey(serverSecret: string): RefreshTokenKey {
  const key = Buffer.from(hkdfSync('sha256', serverSecret, SALT, KEY_INFO, 32));
  const kid = Buffer.from(hkdfSync('sha256', serverSecret, SALT, KID_INFO, 12)).toString('base64url');
  return { kid, key };
}

/** The refresh-token keys of the server secrets given, the one that signs first. */
export function refreshTokenKeys(serverSecrets: readonly [string, ...string[]]): RefreshTokenKeys {
  const keys = serverSecrets.map(deriveKey);
  const current = keys[0] as RefreshTokenKey;
  return { current, byKid: new Map(keys.map((k) => [k.kid, k])) };
}
