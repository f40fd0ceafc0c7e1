import { createHash } from 'node:crypto';
import { type JWTPayload, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { BoundedCache } from '../core/bounded-cache.js';
import { type Clock, epochSeconds } from '../core/clock.js';
import type { Random } from '../core/random.js';
import { signHs256, verifyHs256 } from './refresh-token-jwt.js';
import type { RefreshTokenKeys } from './refresh-token-key.js';
import { type KeyRing, SIGNING_ALG } from './signing-keys.js';

/**
 * `typ` header values (spec-notes I4): an access token is never accepted as a refresh token, nor the
 * reverse. They differ in algorithm too (I4 amended): `at+jwt` is ES256 only, `rt+jwt` HS256.
 */
export const ACCESS_TOKEN_TYP = 'at+jwt';
export const REFRESH_TOKEN_TYP = 'rt+jwt';
export type TokenTyp = typeof ACCESS_TOKEN_TYP | typeof REFRESH_TOKEN_TYP;

/** Claims of both token kinds (spec-notes I4), plus `fid`, the token family (grant) id used for revocation. */
export interface TokenClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  scope: string;
  tenants: string[];
  fid: string;
  iat: number;
  exp: number;
  jti: string;
}

export interface TokenInput {
  sellerId: string;
  clientId: string;
  scope: string;
  tenants: string[];
  familyId: string;
  ttlSeconds: number;
  /** Defaults to a fresh random id. */
  jti?: string;
  /** When the token is issued (its `iat`); defaults to the clock's now. */
  issuedAt?: Date;
}

/** A fresh token id (`jti`): 128 random bits, base64url. */
export function newTokenId(random: Random): string {
  return random.bytes(16).toString('base64url');
}

export class TokenVerificationError extends Error {
  readonly code: 'ERR_TOKEN_INVALID' | 'ERR_TOKEN_EXPIRED';
  constructor(code: TokenVerificationError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/** Verified access tokens kept; a seller reuses one token for its whole life (7200 s), so few are live at once. */
const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

/**
 * Access tokens whose ES256 signature and claims were verified, keyed by the
 * exact token string, so a seller's next call with the same token skips the
 * signature check (a WebCrypto job on the thread pool, a large share of the
 * list API's overhead: docs/decisions.md D22). Only a byte-identical
 * string hits, so nothing unverified is ever accepted; expiry is still checked
 * against the injected clock on every hit, and revocation is not cached at all
 * (the access-token guard reads the token family on every call).
 */
class VerifiedTokenCache extends BoundedCache<string, TokenClaims> {
  constructor(size = VERIFIED_TOKEN_CACHE_SIZE) {
    super(size);
  }
}

export interface TokenSignerOptions {
  /** ES256: access and ID tokens (and refresh tokens issued before I4 amended, read until they expire). */
  keyRing: Pick<KeyRing, 'current' | 'verificationKey'>;
  /** HS256: refresh tokens (spec-notes I4 amended), derived from the server secret (refresh-token-key.ts). */
  refreshKeys: RefreshTokenKeys;
  clock: Clock;
  random: Random;
  /** `iss`: the identity provider's public URL ({auth_url}). */
  issuer: string;
  /** `aud` of access tokens: the platform API's public URL ({base_url}). */
  apiAudience: string;
}

/**
 * Signs and verifies Feira's JWTs; time always comes from the injected clock. Access and ID tokens
 * are ES256 (jose), verifiable by anyone from the JWKS. Refresh tokens are read by Feira alone, so
 * they are HS256 under a key derived from the server secret (spec-notes I4 amended): one HMAC each
 * way instead of an ECDSA signature and verification.
 */
export class TokenSigner {
  /** Access tokens verified before (see VerifiedTokenCache); refresh tokens are used once and always verified. */
  private readonly verifiedAccessTokens = new VerifiedTokenCache();

  constructor(private readonly options: TokenSignerOptions) {}

  /** Refresh tokens are addressed to the token endpoint itself. */
  get refreshAudience(): string {
    return `${this.options.issuer}/oauth/token`;
  }

  async sign(typ: TokenTyp, input: TokenInput): Promise<{ token: string; claims: TokenClaims }> {
    const { keyRing, clock, random, issuer } = this.options;
    const iat = epochSeconds(input.issuedAt ?? clock.now());
    const claims: TokenClaims = {
      iss: issuer,
      sub: input.sellerId,
      aud: typ === ACCESS_TOKEN_TYP ? this.options.apiAudience : this.refreshAudience,
      client_id: input.clientId,
      scope: input.scope,
      tenants: input.tenants,
      fid: input.familyId,
      iat,
      exp: iat + input.ttlSeconds,
      jti: input.jti ?? newTokenId(random),
    };
    if (typ === REFRESH_TOKEN_TYP) return { token: signHs256(this.options.refreshKeys, typ, claims), claims };
    const key = keyRing.current;
    const token = await new SignJWT(claims).setProtectedHeader({ alg: SIGNING_ALG, typ, kid: key.kid }).sign(key.privateKey);
    return { token, claims };
  }

  /**
   * An OpenID Connect ID token (Core §2, spec-notes I14) for the client that
   * exchanged an `openid` code: audience the client, `nonce` as the request
   * sent it, `auth_time` when the seller signed in, `at_hash` binding it to
   * the access token issued beside it (Core §3.1.3.6). Its `typ` is `JWT`,
   * so the API never takes it for an access token (those must be `at+jwt`).
   */
  async signIdToken(input: {
    sellerId: string;
    clientId: string;
    accessToken: string;
    nonce: string | undefined;
    authTime: number;
    ttlSeconds: number;
  }): Promise<string> {
    const { keyRing, clock, issuer } = this.options;
    const iat = epochSeconds(clock.now());
    // Core §3.1.3.6: the left half of the SHA-256 of the access token's ASCII octets, base64url (ES256 hashes with SHA-256).
    const digest = createHash('sha256').update(input.accessToken, 'ascii').digest();
    const claims: JWTPayload = {
      iss: issuer,
      sub: input.sellerId,
      aud: input.clientId,
      exp: iat + input.ttlSeconds,
      iat,
      auth_time: input.authTime,
      at_hash: digest.subarray(0, digest.length / 2).toString('base64url'),
      ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
    };
    const key = keyRing.current;
    return new SignJWT(claims).setProtectedHeader({ alg: SIGNING_ALG, typ: 'JWT', kid: key.kid }).sign(key.privateKey);
  }

  async verify(token: string, typ: TokenTyp): Promise<TokenClaims> {
    const { keyRing, clock, issuer } = this.options;
    if (typ === REFRESH_TOKEN_TYP) {
      const reading = verifyHs256(this.options.refreshKeys, REFRESH_TOKEN_TYP, token);
      if (reading === 'invalid') throw new TokenVerificationError('ERR_TOKEN_INVALID', 'token invalid');
      if (reading !== 'not-hs256') return this.refreshClaims(reading.payload);
      // An ES256 refresh token, issued before I4 amended (a sandbox's stored login holds one): read as
      // before, below, until it expires (refreshTokenTtlSeconds) or is rotated into an HS256 one.
    }
    if (typ === ACCESS_TOKEN_TYP) {
      const known = this.verifiedAccessTokens.get(token);
      if (known) {
        // The same expiry rule as jose's (RFC 7519 §4.1.4: expired when exp <= now, no tolerance).
        if (known.exp > epochSeconds(clock.now())) return known;
        this.verifiedAccessTokens.delete(token);
        throw new TokenVerificationError('ERR_TOKEN_EXPIRED', 'token expired');
      }
    }
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const key = header.kid ? keyRing.verificationKey(header.kid) : undefined;
          if (!key) throw new TokenVerificationError('ERR_TOKEN_INVALID', 'unknown signing key');
          return key;
        },
        {
          // ES256 only: an HS256 token, even one signed with the refresh-token key, is never an access token.
          algorithms: [SIGNING_ALG],
          typ,
          issuer,
          audience: typ === ACCESS_TOKEN_TYP ? this.options.apiAudience : this.refreshAudience,
          currentDate: clock.now(),
          requiredClaims: ['sub', 'client_id', 'scope', 'fid', 'jti', 'exp', 'iat'],
        },
      );
      if (!Array.isArray(payload.tenants)) throw new TokenVerificationError('ERR_TOKEN_INVALID', 'tenants claim missing');
      const claims = payload as TokenClaims;
      if (typ === ACCESS_TOKEN_TYP) this.verifiedAccessTokens.set(token, claims);
      return claims;
    } catch (error) {
      if (error instanceof TokenVerificationError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new TokenVerificationError('ERR_TOKEN_EXPIRED', 'token expired');
      throw new TokenVerificationError('ERR_TOKEN_INVALID', 'token invalid');
    }
  }

  /** The claims checks jose makes of an ES256 token (`iss`, `aud`, `exp` against the clock, required claims), for an HS256 one. */
  private refreshClaims(payload: Record<string, unknown>): TokenClaims {
    const invalid = () => new TokenVerificationError('ERR_TOKEN_INVALID', 'token invalid');
    if (payload.iss !== this.options.issuer || payload.aud !== this.refreshAudience) throw invalid();
    for (const name of ['sub', 'client_id', 'scope', 'fid', 'jti'] as const) {
      if (typeof payload[name] !== 'string') throw invalid();
    }
    if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') throw invalid();
    if (!Array.isArray(payload.tenants) || payload.tenants.some((t) => typeof t !== 'string')) throw invalid();
    // RFC 7519 §4.1.4, as jose reads it: expired when exp <= now, no tolerance.
    if (payload.exp <= epochSeconds(this.options.clock.now()))
      throw new TokenVerificationError('ERR_TOKEN_EXPIRED', 'token expired');
    return payload as TokenClaims;
  }
}
