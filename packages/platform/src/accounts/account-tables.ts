import type { Generated } from 'kysely';

/** Sellers (store owners who log in), their tenants (stores), and client applications. */
export interface AccountTables {
  sellers: {
    id: string;
    name: string;
    login: string;
    password_hash: string;
    created_at: string;
  };
  tenants: {
    id: string;
    seller_id: string;
    name: string;
    created_at: string;
  };
  clients: {
    /** The public client_id. */
    id: string;
    name: string;
    /** SHA-256 hex of the client secret; the secret itself is shown once, at creation. */
    secret_hash: string;
    /** JSON arrays as text (same on both dialects). */
    redirect_uris: string;
    scopes: string;
    default_scopes: string;
    terms_of_use_url: string | null;
    privacy_policy_url: string | null;
    created_at: string;
    /** `none` for a public client (no secret, PKCE required: spec-notes I13); else a confidential one. */
    token_endpoint_auth_method: Generated<string>;
    /** The app's API rate limit set by the operator (spec-notes I20); null: the platform's default. */
    rate_limit_per_second: Generated<number | null>;
    rate_limit_burst: Generated<number | null>;
  };
  /**
   * One token bucket per app and store (spec-notes I20), shared by every API process: `tat` is the
   * bucket's GCRA theoretical arrival time (ms since the epoch); the limit it was last taken under
   * and whether that request was admitted are kept beside it (accounts/api-rate-limit.ts).
   */
  api_rate_buckets: {
    client_id: string;
    /** The store's id, or `seller:<id>` for a personal token's calls. */
    bucket: string;
    tat: number;
    requests_per_second: number;
    burst: number;
    admitted: number;
  };
  /** The browser origins a client's pages call from (its redirect URIs' origins, D45): the CORS allow-list. */
  client_origins: {
    origin: string;
    client_id: string;
  };
  /**
   * Operator console sessions: opened with the admin token, named
   * by a random id whose SHA-256 is the key, ended by sign-out or expiry.
   */
  operator_sessions: {
    id_hash: string;
    created_at: string;
    expires_at: string;
    ended_at: string | null;
  };
  /** Small key/value settings the platform keeps about itself. */
  platform_settings: {
    key: string;
    value: string;
    updated_at: Generated<string>;
  };
}
