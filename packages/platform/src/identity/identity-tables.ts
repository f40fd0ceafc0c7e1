/**
 * Tables of the identity provider: signing keys, token families, authorization
 * codes, refresh tokens, consents and login attempts.
 */
export interface IdentityTables {
  signing_keys: {
    kid: string;
    alg: string;
    public_jwk: string;
    /** The private JWK sealed with the server's SecretBox (encrypted at rest, SPEC-DECISIONS I4). */
    private_jwk_sealed: string;
    created_at: string;
    /** Set when a newer key took over signing; verification still accepts it. */
    retired_at: string | null;
  };
  /**
   * One family per authorization grant (one code). Every access and refresh
   * token carries its family id (`fid` claim); revoking the family revokes them
   * all (RFC 6749 §4.1.2 code reuse, SPEC-DECISIONS I5/I6). The family row is
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
    /** JSON array of tenant ids (empty for a personal grant, SPEC-DECISIONS I9). */
    tenants: string;
    /** PKCE S256 challenge (SPEC-DECISIONS I8), null when the client sent none. */
    code_challenge: string | null;
    created_at: string;
    expires_at: string;
    /** Set by the one exchange that wins (conditional UPDATE … WHERE used_at IS NULL). */
    used_at: string | null;
  };
  /**
   * Refresh tokens by `jti` (SPEC-DECISIONS I5). A token stays usable until
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
  /** Failed logins per login name, for the back-off ("Bad input": brute force is slowed down). */
  login_attempts: {
    login: string;
    failures: number;
    last_failure_at: string;
    blocked_until: string | null;
  };
}
