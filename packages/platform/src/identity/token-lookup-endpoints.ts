import { IntrospectionResponse, OAuthErrorBody, TokenLookupRequest } from '@feira/contract';
import type { FastifyInstance } from 'fastify';
import { authenticateClient, refuseOriginOfAnotherApp } from './client-authentication.js';
import { introspectToken, revokeToken } from './grant-revocation.js';
import { oauthErrorHandler, throttledResponse } from './oauth-error.js';
import { OAUTH_BODY_MEDIA_TYPES, TokenRequestParams } from './token-request-params.js';

const oauthErrors = {
  400: { ...OAuthErrorBody, description: 'RFC 6749 §5.2 error: invalid_request (no token, repeated or malformed parameter)' },
  401: { ...OAuthErrorBody, description: 'invalid_client: client authentication failed (RFC 6749 §5.2)' },
  429: throttledResponse,
};

/**
 * `POST /oauth/revoke` (RFC 7009) and `POST /oauth/introspect` (RFC 7662), in their own
 * encapsulated context with the token endpoint's RFC 6749 §5.2 error handler. Both
 * authenticate the client exactly as the token endpoint does (spec-notes I2: HTTP Basic
 * or client_secret_post, form or JSON).
 */
export async function tokenLookupEndpoints(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(oauthErrorHandler);

  app.post(
    '/oauth/revoke',
    {
      bodyLimit: 16 * 1024,
      schema: {
        operationId: 'revokeToken',
        tags: ['identity'],
        summary: 'Revoke an access or refresh token (RFC 7009)',
        description:
          'Ends the grant the token belongs to: every access and refresh token of it is refused from now on. ' +
          'Answers 200 for a token that is unknown, expired, already revoked or not issued to this client (RFC 7009 §2.2).',
        security: [{ clientSecretBasic: [] }],
        consumes: OAUTH_BODY_MEDIA_TYPES,
        body: TokenLookupRequest,
        response: {
          200: { type: 'object', additionalProperties: false, description: 'The token is no longer valid (or never was): `{}`' },
          ...oauthErrors,
        },
      },
      // Validation is the handler's (RFC 6749 §5.2 errors, not Fastify's 400 shape).
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const params = TokenRequestParams.from(request.body);
      const token = params.require('token');
      // RFC 7009 §2.1 lets a public client revoke its own tokens by client_id (spec-notes I13).
      const client = await authenticateClient(request, params, { allowPublic: true });
      await refuseOriginOfAnotherApp(request, client.id);
      await revokeToken(request.server.identity, client.id, token, params.get('token_type_hint'));
      // `{}` rather than an empty body: RFC 7009 §2.2 leaves the body open, and clients that parse every answer as JSON
      // (simple-oauth2's revoke) fail on an empty one (spec-notes I15).
      return reply.code(200).send({});
    },
  );

  app.post(
    '/oauth/introspect',
    {
      bodyLimit: 16 * 1024,
      schema: {
        operationId: 'introspectToken',
        tags: ['identity'],
        summary: 'Introspect an access or refresh token (RFC 7662)',
        description:
          'Whether the token is in force now, with its scope, client, seller, stores and times. A client may introspect ' +
          'only its own tokens; any other token answers `{"active": false}`.',
        security: [{ clientSecretBasic: [] }],
        consumes: OAUTH_BODY_MEDIA_TYPES,
        body: TokenLookupRequest,
        response: { 200: IntrospectionResponse, ...oauthErrors },
      },
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const params = TokenRequestParams.from(request.body);
      const token = params.require('token');
      const client = await authenticateClient(request, params);
      return introspectToken(request.server.identity, client.id, token, params.get('token_type_hint'));
    },
  );
}
