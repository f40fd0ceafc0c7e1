import { type Static, Type } from '@sinclair/typebox';

/**
 * The token set (spec "Resources and their fields"): the response of both the
 * code exchange and the refresh grant. Exactly these six fields.
 */
export const TokenSet = Type.Object(
  {
    access_token: Type.String({ description: 'ES256 JWT (typ at+jwt) for the platform APIs, sent as `Authorization: Bearer`' }),
    refresh_token: Type.String({ description: 'ES256 JWT (typ rt+jwt); every refresh returns a new one (SPEC-DECISIONS I5)' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ minimum: 1, description: 'Lifetime of the access token in seconds (7200 by default)' }),
    scope: Type.String({ description: 'Granted scopes, separated by single spaces' }),
    created_at: Type.Integer({ description: 'Unix time (seconds) when the tokens were created' }),
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

/** Body of every token-endpoint error (RFC 6749 §5.2, SPEC-DECISIONS I7). */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.Union(OAUTH_ERROR_CODES.map((code) => Type.Literal(code))),
    error_description: Type.Optional(Type.String()),
  },
  { $id: 'OAuthError', additionalProperties: false },
);
export type OAuthErrorBody = Static<typeof OAuthErrorBody>;
