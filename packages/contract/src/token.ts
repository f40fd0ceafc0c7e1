import { type Static, Type } from '@sinclair/typebox';

/**
 * The token set (spec "Resources and their fields"): the response of both the
 * code exchange and the refresh grant. Exactly these six fields.
 */
export const TokenSet = Type.Object(
  {
    access_token: Type.String({ description: 'ES256 JWT (typ at+jwt) for the platform APIs, sent as `Authorization: Bearer`' }),
    refresh_token: Type.String({
      description:
        'JWT (typ rt+jwt, HS256: read only by the platform, spec-notes I4); every refresh returns a new one (spec-notes I5)',
    }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ minimum: 1, description: 'Lifetime of the access token in seconds (7200 by default)' }),
    scope: Type.String({ description: 'Granted scopes, separated by single spaces' }),
    created_at: Type.Integer({ description: 'Unix time (seconds) when the tokens were created' }),
    id_token: Type.Optional(
      Type.String({
        description:
          'OpenID Connect ID token (ES256 JWT: iss, sub, aud, exp, iat, auth_time, nonce, at_hash), when the `openid` scope was granted, on the code exchange only',
      }),
    ),
  },
  { $id: 'TokenSet', additionalProperties: false },
);
export type TokenSet = Static<typeof TokenSet>;

/** Error codes of the token endpoint (RFC 6749 §5.2) and of the authorization redirect (§4.1.2.1). */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'unsupported_response_type',
  'server_error',
  'temporarily_unavailable',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** Body of every token-endpoint error (RFC 6749 §5.2, spec-notes I7). */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.Union(OAUTH_ERROR_CODES.map((code) => Type.Literal(code))),
    error_description: Type.Optional(Type.String()),
  },
  { $id: 'OAuthError', additionalProperties: false },
);
export type OAuthErrorBody = Static<typeof OAuthErrorBody>;

/** Parameters of `POST /oauth/token` (RFC 6749 §4.1.3, §6), as a form or JSON (spec-notes I2). */
export const TokenRequest = Type.Object(
  {
    grant_type: Type.Union([Type.Literal('authorization_code'), Type.Literal('refresh_token')]),
    code: Type.Optional(Type.String({ description: 'authorization_code grant: the code from the redirect' })),
    redirect_uri: Type.Optional(Type.String({ description: 'authorization_code grant: exactly as sent to /login' })),
    code_verifier: Type.Optional(Type.String({ description: 'authorization_code grant: the PKCE verifier (RFC 7636)' })),
    refresh_token: Type.Optional(Type.String({ description: 'refresh_token grant: the latest refresh token' })),
    scope: Type.Optional(Type.String({ description: 'refresh_token grant: a narrower scope (RFC 6749 §6)' })),
    client_id: Type.Optional(Type.String({ description: 'client_secret_post: the client id (or use HTTP Basic)' })),
    client_secret: Type.Optional(Type.String({ description: 'client_secret_post: the client secret (or use HTTP Basic)' })),
  },
  { $id: 'TokenRequest' },
);
export type TokenRequest = Static<typeof TokenRequest>;

/** Parameters of `POST /oauth/revoke` (RFC 7009 §2.1) and `POST /oauth/introspect` (RFC 7662 §2.1). */
export const TokenLookupRequest = Type.Object(
  {
    token: Type.String({ description: 'An access token or a refresh token' }),
    token_type_hint: Type.Optional(
      Type.Union([Type.Literal('access_token'), Type.Literal('refresh_token')], {
        description: 'Which kind the token is; only a hint, the server also looks it up as the other kind',
      }),
    ),
    client_id: Type.Optional(Type.String({ description: 'client_secret_post: the client id (or use HTTP Basic)' })),
    client_secret: Type.Optional(Type.String({ description: 'client_secret_post: the client secret (or use HTTP Basic)' })),
  },
  { $id: 'TokenLookupRequest' },
);
export type TokenLookupRequest = Static<typeof TokenLookupRequest>;

/**
 * The RFC 7662 §2.2 introspection answer. An inactive token (unknown, expired,
 * revoked, superseded by rotation, or another client's) is `{ "active": false }` alone.
 */
export const IntrospectionResponse = Type.Object(
  {
    active: Type.Boolean({ description: 'Whether the token is in force now' }),
    scope: Type.Optional(Type.String({ description: 'Granted scopes, separated by single spaces' })),
    client_id: Type.Optional(Type.String()),
    sub: Type.Optional(Type.String({ description: 'The seller who granted the token' })),
    exp: Type.Optional(Type.Integer({ description: 'Expiry, Unix time in seconds' })),
    iat: Type.Optional(Type.Integer({ description: 'Issue time, Unix time in seconds' })),
    iss: Type.Optional(Type.String()),
    jti: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.Union([Type.Literal('Bearer'), Type.Literal('refresh_token')])),
    tenants: Type.Optional(
      Type.Array(Type.String(), { description: 'The stores the grant covers (empty for a personal grant, spec-notes I9)' }),
    ),
  },
  { $id: 'IntrospectionResponse', additionalProperties: false },
);
export type IntrospectionResponse = Static<typeof IntrospectionResponse>;
