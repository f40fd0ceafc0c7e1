import { OAuthErrorBody, TokenRequest, TokenSet } from '@feira/contract';
import type { FastifyInstance } from 'fastify';
import { exchangeAuthorizationCode } from './authorization-codes.js';
import { authenticateClient, refuseOriginOfAnotherApp } from './client-authentication.js';
import { OAuthError, oauthErrorHandler, throttledResponse } from './oauth-error.js';
import { rotateRefreshToken } from './refresh-token-rotation.js';
import { OAUTH_BODY_MEDIA_TYPES, TokenRequestParams } from './token-request-params.js';

/**
 * `POST {auth_url}/oauth/token` (spec "Code exchange" and "Token refresh"), in
 * its own encapsulated context: its error handler speaks RFC 6749 §5.2, not the
 * platform error shape (spec-notes I7). The form parser is registered by
 * the parent identity plugin; JSON is Fastify's own (spec-notes I2).
 */
export async function tokenEndpoint(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(oauthErrorHandler);

  app.post(
    '/oauth/token',
    {
      // A token request is small; a huge body is refused before it is parsed.
      bodyLimit: 16 * 1024,
      schema: {
        tags: ['identity'],
        operationId: 'createToken',
        summary: 'Token endpoint: authorization_code and refresh_token grants (form or JSON)',
        description:
          'RFC 6749 §4.1.3 and §6. Client credentials in the body or HTTP Basic. Errors follow RFC 6749 §5.2 (`error`, `error_description`).',
        security: [{ clientSecretBasic: [] }],
        consumes: OAUTH_BODY_MEDIA_TYPES,
        body: TokenRequest,
        response: {
          200: TokenSet,
          400: {
            ...OAuthErrorBody,
            description: 'RFC 6749 §5.2: invalid_request, invalid_grant, unsupported_grant_type, invalid_scope',
          },
          401: { ...OAuthErrorBody, description: 'RFC 6749 §5.2: invalid_client (client authentication failed)' },
          429: throttledResponse,
        },
      },
      // Validation is the handler's (TokenRequestParams): its errors are RFC 6749 §5.2 bodies.
      validatorCompiler: () => () => true,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const params = TokenRequestParams.from(request.body);
      const grantType = params.require('grant_type');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
        throw new OAuthError('unsupported_grant_type', 'Supported grant types: authorization_code, refresh_token');
      }
      // spec-notes I13: a public client names itself by client_id alone.
      const client = await authenticateClient(request, params, { allowPublic: true });
      await refuseOriginOfAnotherApp(request, client.id);
      const platform = request.server.identity;
      if (grantType === 'authorization_code') {
        return exchangeAuthorizationCode(platform, client.id, {
          code: params.require('code'),
          redirectUri: params.require('redirect_uri'),
          codeVerifier: params.get('code_verifier'),
          publicClient: client.publicClient,
        });
      }
      return rotateRefreshToken(platform, client.id, {
        refreshToken: params.require('refresh_token'),
        scope: params.get('scope'),
      });
    },
  );
}
