import type { Generated } from 'kysely';

/**
 * Tables of the identity provider: signing keys, token families, authorization
 * codes, refresh tokens, consents, attempt counters and login sessions.
 */
export interface IdentityTables {
  signing_keys: {
    kid: string;
    alg: string;
    public_jwk: string;
    /** The private JWK sealed with the server's SecretBox (encrypted at rest, spec-notes I4). */
    private_jwk_sealed: string;
    /** Published in the JWKS from then (verification accepts it from then too). */
    created_at: string;
    /** Signs new tokens from then (until a newer key's `signs_from`); null only for rows written before it existed. */
    signs_from: string | null;
    /** Written by releases before keys rotated while running; no longer read. */
    retired_at: string | null;
  };
  /**
   * One family per authorization grant (one code). Every access and refresh
   * token carries its family id (`fid` claim); revoking the family revokes them
   * all (RFC 6749 §4.1.2 code reuse, spec-notes I5/I6). The family row is
   * written when the code is issued, so a losing concurrent exchange can revoke it.
   */
  token_families: {
    id: string;
    client_id: string;
    seller_id: string;
    created_at: string;
    revoked_at: string | null;
    revoked_reason: string | null;
  };
  /** Authorization codes (spec "States and transitions"): stored only as SHA-256, single use, 10 minutes. */
  authorization_codes: {
    code_hash: string;
    family_id: string;
    client_id: string;
    seller_id: string;
    /** Exactly as sent to /login; the exchange must present the same string (spec Authentication §5). */
    redirect_uri: string;
    /** Space-separated granted scopes. */
    scope: string;
    /** JSON array of tenant ids (empty for a personal grant, spec-notes I9). */
    tenants: string;
    /** PKCE S256 challenge (spec-notes I8), null when the client sent none. */
    code_challenge: string | null;
    /** OpenID Connect: the `nonce` of an `openid` request, echoed in the ID token. */
    nonce: string | null;
    /** OpenID Connect: when the seller signed in (the login session's start), the ID token's `auth_time`. */
    auth_time: string | null;
    created_at: string;
    expires_at: string;
    /** Set by the one exchange that wins (conditional UPDATE … WHERE used_at IS NULL). */
    used_at: string | null;
  };
  /**
   * Refresh tokens by `jti` (spec-notes I5). A token stays usable until
   * `superseded_at` is set, which happens when one of its successors is first
   * used; presenting a superseded token is reuse and revokes the family.
   */
  refresh_tokens: {
    jti: string;
    family_id: string;
    /** The refresh token this one was rotated from; null for the first one of a family. */
    parent_jti: string | null;
    created_at: string;
    expires_at: string;
    /** First time this token was presented successfully. */
    used_at: string | null;
    /** How many times it was presented successfully: bounded within the grace (spec-notes I5). */
    use_count: Generated<number>;
    superseded_at: string | null;
  };
  /** Scopes a seller granted to a client, per tenant ('' = personal grant): the consent screen is skipped when all are here (I10). */
  consents: {
    client_id: string;
    seller_id: string;
    tenant_key: string;
    scope: string;
    granted_at: string;
  };
  /**
   * Attempt counters of the login and token endpoints, shared by
   * every process on the database: `reserved` attempts in the window that
   * started at `window_started_at` (a password's attempt is reserved before the
   * secret is checked and given back when it succeeds; a client secret's key
   * counts only failures, spec-notes I21), consecutive `failures` and the
   * back-off they earned.
   */
  auth_throttle: {
    key: string;
    window_started_at: string;
    reserved: number;
    failures: number;
    blocked_until: string | null;
  };
  /** Server-side login sessions: the cookie holds a random id, stored here only as SHA-256, so logout ends a copied cookie too. */
  login_sessions: {
    id_hash: string;
    seller_id: string;
    created_at: string;
    expires_at: string;
    /** Set by logout, or when the seller's sessions are ended (password change, admin). */
    ended_at: string | null;
    ended_reason: string | null;
  };
}
