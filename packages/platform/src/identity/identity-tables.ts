/** Signing keys and token families. The identity issue adds codes, grants and refresh tokens here. */
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
   * One family per authorization grant (one code exchange). Every access and
   * refresh token carries its family id (`fid` claim); revoking the family
   * revokes them all (RFC 6749 §4.1.2 code reuse, SPEC-DECISIONS I5/I6).
   */
  token_families: {
    id: string;
    client_id: string;
    seller_id: string;
    created_at: string;
    revoked_at: string | null;
    revoked_reason: string | null;
  };
}
